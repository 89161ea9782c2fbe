import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { log } from '../../engine/api.js';
import {
  CommandFailure,
  type Data,
  type EnvelopeOptions,
  failure,
  invalidArgument,
  success,
} from './envelope.js';
import {
  decodeBase64,
  listStaged,
  removeStaged,
  stageFile,
  tooLarge,
  type UploadConfig,
} from './upload-staging.js';

/**
 * The staging routes (reference §2.1) in their own fastify scope: raw-buffer body parsing and a body
 * limit sized for the staging limit (the command API keeps its 8 MiB). The server's request guard
 * (token, Host, Origin) is an onRequest hook of the parent and runs first, as for every route.
 */
export function registerUploadRoutes(app: FastifyInstance, upload: UploadConfig, env: EnvelopeOptions): void {
  // base64 in JSON is 4/3 of the file, plus the JSON around it; multipart adds its headers.
  const bodyLimit = Math.ceil((upload.maxBytes * 4) / 3) + 1024 * 1024;
  const send = (res: FastifyReply, reply: { status: number; body: Data }) =>
    res
      .code(reply.status)
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify(reply.body));
  const fromError = (err: unknown) =>
    err instanceof CommandFailure
      ? failure(err, env)
      : failure(
          new CommandFailure(`上传失败：${err instanceof Error ? err.message : String(err)}`, {
            errorCode: 'ACTION_FAILED',
            retryable: false,
          }),
          env,
        );

  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => done(null, body));

    scope.setErrorHandler(async (err: FastifyError, _req, res) => {
      const status = typeof err.statusCode === 'number' ? err.statusCode : 0;
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413)
        return send(res, failure(tooLarge(upload.maxBytes, undefined), env));
      if (status >= 400 && status < 500)
        return send(res, failure(invalidArgument(`上传失败：${err.message}`), env));
      log.error({ err }, 'http door: upload failed');
      return send(res, fromError(err));
    });

    scope.post('/playwright/upload', { bodyLimit }, async (req, res) => {
      try {
        const { filename, data, form } = parseUploadBody(req, upload.maxBytes);
        const staged = await stageFile(upload, filename, data);
        return send(
          res,
          success(
            {
              ...staged,
              form,
              stagingDir: upload.dir,
              warning: staged.size === 0 ? '文件是空的（0 字节）' : undefined,
              hint: `把 path 传给 upload_file：{"method":"upload_file","params":{"path":${JSON.stringify(staged.path)},"selector":"input[type=file]"}}`,
            },
            env,
          ),
        );
      } catch (err) {
        return send(res, fromError(err));
      }
    });

    scope.get('/playwright/upload', async (_req, res) => {
      try {
        const files = await listStaged(upload);
        return send(
          res,
          success(
            {
              files,
              count: files.length,
              bytes: files.reduce((n, f) => n + f.size, 0),
              stagingDir: upload.dir,
              maxBytes: upload.maxBytes,
              overwrite: upload.overwrite,
            },
            env,
          ),
        );
      } catch (err) {
        return send(res, fromError(err));
      }
    });

    scope.delete('/playwright/upload', async (req, res) => {
      try {
        const name = queryOf(req).name;
        const r = await removeStaged(upload, name);
        if (!r.removed) {
          return send(
            res,
            failure(
              new CommandFailure(
                `删除失败：暂存目录里没有文件 ${r.filename}（GET /playwright/upload 列出现有文件）`,
                {
                  errorCode: 'ACTION_FAILED',
                  retryable: false,
                  removed: false,
                  filename: r.filename,
                },
              ),
              env,
            ),
          );
        }
        return send(res, success({ removed: true, filename: r.filename, path: r.path }, env));
      } catch (err) {
        return send(res, fromError(err));
      }
    });
  });
}

function queryOf(req: FastifyRequest): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  const q = (req.raw.url ?? '').split('?')[1];
  if (!q) return out;
  for (const [k, v] of new URLSearchParams(q)) out[k] ??= v;
  return out;
}

/** The three request forms of §2.1 → file name and bytes. */
export function parseUploadBody(
  req: FastifyRequest,
  maxBytes: number,
): { filename: unknown; data: Buffer; form: 'multipart' | 'raw' | 'json' } {
  const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  const query = queryOf(req);
  if (type.startsWith('multipart/form-data')) {
    const part = parseMultipart(body, String(req.headers['content-type']), query.field || 'file');
    return { filename: query.filename ?? part.filename, data: part.data, form: 'multipart' };
  }
  if (type.startsWith('multipart/'))
    throw invalidArgument(`上传失败：只接受 multipart/form-data，不接受 ${type.split(';')[0]}`, {
      field: 'content-type',
    });
  if (type.startsWith('application/json') && query.filename === undefined) {
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch (err) {
      throw invalidArgument(
        `上传失败：JSON 请求体解析失败（${err instanceof Error ? err.message : String(err)}）；格式为 {"filename":"a.jpg","contentBase64":"..."}；上传 JSON 文件本身请加 ?filename=`,
        { field: 'body' },
      );
    }
    if (json === null || typeof json !== 'object' || Array.isArray(json))
      throw invalidArgument('上传失败：JSON 请求体必须是对象 {"filename":"a.jpg","contentBase64":"..."}', {
        field: 'body',
      });
    const o = json as Record<string, unknown>;
    if (o.contentBase64 === undefined)
      throw invalidArgument('上传失败：缺少参数 contentBase64', { field: 'contentBase64' });
    return {
      filename: o.filename,
      data: decodeBase64('contentBase64', o.contentBase64, maxBytes),
      form: 'json',
    };
  }
  if (query.filename === undefined)
    throw invalidArgument(
      `上传失败：${type ? `content-type ${type.split(';')[0]} 按原始字节处理，` : ''}缺少 ?filename=<文件名>；或用 multipart/form-data（字段 file），或 JSON {"filename","contentBase64"}`,
      { field: 'filename' },
    );
  return { filename: query.filename, data: body, form: 'raw' };
}

/**
 * The file part named `field` of a multipart/form-data body (RFC 7578). The whole body is in memory
 * already (the route's limit bounds it), so a scan for the boundary is enough.
 */
export function parseMultipart(
  body: Buffer,
  contentType: string,
  field: string,
): { filename: string | undefined; data: Buffer } {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary || boundary.length > 200)
    throw invalidArgument('上传失败：multipart/form-data 缺少 boundary', { field: 'content-type' });
  const delim = Buffer.from(`--${boundary}`);
  let pos = body.indexOf(delim);
  if (pos < 0) throw invalidArgument('上传失败：multipart 请求体里找不到 boundary', { field: 'body' });
  const seen: string[] = [];
  for (;;) {
    pos += delim.length;
    if (body.subarray(pos, pos + 2).toString() === '--') break; // the closing delimiter
    if (body.subarray(pos, pos + 2).toString() === '\r\n') pos += 2;
    const headEnd = body.indexOf('\r\n\r\n', pos);
    if (headEnd < 0) break;
    const headers = body.subarray(pos, headEnd).toString('utf8');
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), headEnd + 4);
    if (next < 0)
      throw invalidArgument('上传失败：multipart 请求体不完整（缺少结束的 boundary）', { field: 'body' });
    const disposition = /^content-disposition:(.*)$/im.exec(headers)?.[1] ?? '';
    const name = dispositionParam(disposition, 'name');
    if (name !== undefined) seen.push(name);
    if (name === field) {
      const star = dispositionParam(disposition, 'filename*');
      let filename = dispositionParam(disposition, 'filename');
      if (star) {
        const enc = /^([^']*)'[^']*'(.*)$/.exec(star);
        try {
          filename = enc ? decodeURIComponent(enc[2]!) : star;
        } catch {
          // keep the plain filename
        }
      }
      return { filename, data: body.subarray(headEnd + 4, next) };
    }
    pos = next + 2;
  }
  throw invalidArgument(
    `上传失败：multipart 里没有名为 ${field} 的文件字段${seen.length ? `（收到的字段：${seen.join(', ')}）` : ''}；字段名不同时加 ?field=<字段名>`,
    { field: 'file', fields: seen },
  );
}

function dispositionParam(disposition: string, key: string): string | undefined {
  const escaped = key.replace(/[*]/g, '\\*');
  const re = new RegExp(`(?:^|;)\\s*${escaped}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, 'i');
  const m = re.exec(disposition);
  if (!m) return undefined;
  // Browsers do not backslash-escape (a Windows path keeps its backslashes); only \" is unescaped.
  return m[1] !== undefined ? m[1].replace(/\\"/g, '"') : m[2]!.trim();
}
