import { isTabwrightError, toTabwrightError } from '../../../engine/api.js';
import { PipeError, type PipeErrorCode } from '../protocol/errors.js';
import { pipeWords } from './words.js';

/**
 * Engine errors → pipe error codes. The engine's message (which says what
 * to do next) is kept, in this door's words; `navigation` turns load failures
 * into navigation_failed.
 */
export function toPipeError(err: unknown, ctx: { navigation?: boolean } = {}): PipeError {
  if (err instanceof PipeError) return err;
  const e = isTabwrightError(err) ? err : toTabwrightError(err);
  let code: PipeErrorCode;
  switch (e.code) {
    case 'invalid_request':
    case 'invalid_selector':
    case 'unsupported_method':
      code = 'invalid_params';
      break;
    case 'element_not_found':
      code = 'element_not_found';
      break;
    case 'element_not_actionable':
    case 'unsupported_target':
      code = 'element_not_actionable';
      break;
    case 'navigation_timeout':
      code = 'timeout';
      break;
    case 'not_ready':
      code = e.details.reason === 'network_error' ? 'navigation_failed' : 'timeout';
      break;
    case 'permission_denied':
      code =
        e.details.origin !== undefined || e.details.url !== undefined
          ? 'domain_not_allowed'
          : 'internal_error';
      break;
    default:
      code = ctx.navigation ? 'navigation_failed' : 'internal_error';
  }
  return new PipeError(code, pipeWords(e.message), { engine_code: e.code });
}
