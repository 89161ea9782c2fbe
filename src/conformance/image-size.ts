/**
 * The pixel size written in a PNG or JPEG itself, so the suite can compare a provider's
 * `width`/`height` with the image it sent (the suite trusts no number the provider states).
 */

export interface ImageSize {
  format: 'png' | 'jpeg';
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** SOFn markers carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** The size from the image's own header, or null when it is neither a readable PNG nor JPEG. */
export function imageSize(bytes: Buffer): ImageSize | null {
  if (bytes.length >= 24 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) {
    // The first chunk is IHDR: length (4), "IHDR" (4), width (4), height (4).
    if (bytes.subarray(12, 16).toString('latin1') !== 'IHDR') return null;
    return { format: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    let i = 2;
    while (i + 9 < bytes.length) {
      if (bytes[i] !== 0xff) return null;
      const marker = bytes[i + 1]!;
      if (marker === 0xff) {
        i += 1; // fill byte
        continue;
      }
      if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
        i += 2; // markers without a length
        continue;
      }
      const length = bytes.readUInt16BE(i + 2);
      if (isStartOfFrame(marker)) {
        return { format: 'jpeg', height: bytes.readUInt16BE(i + 5), width: bytes.readUInt16BE(i + 7) };
      }
      i += 2 + length;
    }
  }
  return null;
}
