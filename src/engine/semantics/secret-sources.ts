import { collectSecrets, secretFreeCopy, secretReason } from './secrets.js';

/**
 * The secret rule's page functions as source text, for reads that send page functions as text
 * (element reads, content reads, refusals). Built from the functions themselves, in one place,
 * so no read carries a copy of the rule. (Kept out of secrets.ts: the page bundles import that
 * file, and these strings are for Node only.)
 */

/** `(el) => SecretReason | null`. */
export const SECRET_REASON_SOURCE = secretReason.toString();

/** `(root) => FoundSecrets`: the secret values under root (the document when null) and their field names. */
export const COLLECT_SECRETS_SOURCE = `((root) => (${collectSecrets.toString()})(root, ${SECRET_REASON_SOURCE}))`;

/** `(el) => Element`: el, or a copy of it without its secrets (for HTML reads). */
export const SECRET_FREE_COPY_SOURCE = `((el) => (${secretFreeCopy.toString()})(el, ${SECRET_REASON_SOURCE}))`;
