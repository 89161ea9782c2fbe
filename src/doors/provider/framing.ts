/** The provider door's line limit; the framing itself is shared (../kit/line-framer.ts). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
