/**
 * Image files kept here, as `/media/<sha256>.<ext>` serves them. Anyone may read one: a kept file is named by
 * the hash of its bytes (nobody finds one without having been shown its URL), and the images it copies were
 * public files of the site they came from, as WordPress' uploads are.
 */
import type { Storage } from '../../storage/storage.js';
import { errors } from '../errors.js';
import { type MediaInfo, parseMediaName } from './media.js';

export class MediaService {
  constructor(private readonly storage: Storage) {}

  /** A kept file's description by its served name (media-not-found for any other name). */
  async describe(name: string): Promise<MediaInfo> {
    const parsed = parseMediaName(name);
    const info = parsed ? await this.storage.media.find(parsed.sha256) : undefined;
    if (!info || info.extension !== parsed?.extension) throw errors.mediaNotFound();
    return info;
  }

  /** A kept file with its bytes, by its served name. */
  async read(name: string): Promise<{ info: MediaInfo; bytes: Buffer }> {
    const parsed = parseMediaName(name);
    const found = parsed ? await this.storage.media.read(parsed.sha256) : undefined;
    if (!found || found.info.extension !== parsed?.extension) throw errors.mediaNotFound();
    return found;
  }
}
