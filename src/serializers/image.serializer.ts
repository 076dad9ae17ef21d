import type { ImageResponse } from '../http/schemas/components.schemas.js';
import type { ImageRecord } from '../storage/stores/image.store.js';

/** The image object: empty values dropped, as the original drops them. */
export function serializeImage(image: ImageRecord | undefined): ImageResponse | false {
  if (!image) return false;
  const out: ImageResponse = { url: image.url, id: image.id };
  if (image.extension) out.extension = image.extension;
  if (image.width) out.width = image.width;
  if (image.height) out.height = image.height;
  if (image.filesize) out.filesize = image.filesize;
  if (Object.keys(image.sizes).length > 0) out.sizes = image.sizes;
  return out;
}
