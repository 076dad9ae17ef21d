import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { mediaPath, parseMediaName, sniffImage } from './media.js';

const u16be = (n: number) => Buffer.from([n >> 8, n & 0xff]);
const u24le = (n: number) => Buffer.from([n & 0xff, (n >> 8) & 0xff, n >> 16]);
const u32be = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const box = (type: string, ...payload: Buffer[]) => {
  const body = Buffer.concat(payload);
  return Buffer.concat([u32be(8 + body.length), Buffer.from(type, 'latin1'), body]);
};

/** The smallest files whose headers say what they are and how large (nothing here decodes pixels). */
const samples = {
  jpg: Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
    u16be(16),
    Buffer.from('JFIF\0', 'latin1'),
    Buffer.alloc(9),
    Buffer.from([0xff, 0xc0]),
    u16be(17),
    Buffer.from([8]),
    u16be(480), // height
    u16be(640), // width
    Buffer.alloc(10),
    Buffer.from([0xff, 0xd9]),
  ]),
  png: Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    u32be(13),
    Buffer.from('IHDR', 'latin1'),
    u32be(300),
    u32be(188),
    Buffer.from([8, 2, 0, 0, 0]),
    Buffer.alloc(4),
  ]),
  gif: Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([0x20, 0x01, 0xc8, 0x00]), Buffer.alloc(10)]),
  webp: Buffer.concat([
    Buffer.from('RIFF', 'latin1'),
    Buffer.from([22, 0, 0, 0]),
    Buffer.from('WEBPVP8X', 'latin1'),
    Buffer.from([10, 0, 0, 0]),
    Buffer.alloc(4),
    u24le(1024 - 1),
    u24le(576 - 1),
  ]),
  avif: Buffer.concat([
    box('ftyp', Buffer.from('avif', 'latin1'), u32be(0), Buffer.from('avifmif1miaf', 'latin1')),
    box('meta', u32be(0), box('iprp', box('ipco', box('ispe', u32be(0), u32be(1200), u32be(675))))),
  ]),
};

describe('which bytes are kept as images', () => {
  it('reads JPEG, PNG, GIF, WebP and AVIF by their bytes, with their width and height', () => {
    const expected = { jpg: [640, 480], png: [300, 188], gif: [288, 200], webp: [1024, 576], avif: [1200, 675] } as const;
    for (const [ext, bytes] of Object.entries(samples)) {
      const got = sniffImage(bytes);
      assert.ok(got.ok, `${ext}: ${got.ok ? '' : got.reason}`);
      assert.deepEqual([got.info.extension, got.info.width, got.info.height], [ext, ...expected[ext as keyof typeof expected]]);
      assert.equal(got.info.size, bytes.length);
      assert.equal(got.info.sha256, createHash('sha256').update(bytes).digest('hex'));
    }
    assert.equal((sniffImage(samples.jpg) as { info: { mimeType: string } }).info.mimeType, 'image/jpeg');
    assert.equal((sniffImage(samples.avif) as { info: { mimeType: string } }).info.mimeType, 'image/avif');
  });

  it('refuses SVG, HTML, other image types, HEIC, empty and damaged files, saying why', () => {
    const refused = (bytes: Buffer) => {
      const got = sniffImage(bytes);
      assert.equal(got.ok, false);
      return got.ok ? '' : got.reason;
    };
    const svg = 'an SVG image (SVG can carry script): not kept';
    assert.equal(refused(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>')), svg);
    assert.equal(refused(Buffer.from('\uFEFF  <?xml version="1.0"?>\n<!-- a drawing -->\n<svg xmlns="http://www.w3.org/2000/svg"></svg>')), svg);
    assert.equal(refused(Buffer.from('<!DOCTYPE html><html><body>Not here</body></html>')), 'an HTML page, not an image');
    assert.equal(refused(Buffer.from('<html lang="en"><head></head></html>')), 'an HTML page, not an image');
    const bmp = Buffer.concat([Buffer.from('BM', 'latin1'), Buffer.alloc(16), Buffer.from([10, 0, 0, 0, 10, 0, 0, 0]), Buffer.alloc(30)]);
    assert.equal(refused(bmp), 'a BMP image: only JPEG, PNG, GIF, WebP and AVIF are kept');
    const heic = Buffer.concat([box('ftyp', Buffer.from('heic', 'latin1'), u32be(0), Buffer.from('mif1heic', 'latin1')), samples.avif.subarray(28)]);
    assert.match(refused(heic), /only JPEG, PNG, GIF, WebP and AVIF are kept/);
    assert.equal(refused(Buffer.alloc(0)), 'the answer was empty');
    assert.equal(refused(Buffer.from('{"code":"rest_forbidden"}')), 'not an image (only JPEG, PNG, GIF, WebP and AVIF are kept)');
    assert.equal(refused(samples.png.subarray(0, 12)), 'its bytes begin as image/png but its size cannot be read (a damaged file)');
    assert.equal(refused(samples.jpg.subarray(0, 8)), 'its bytes begin as image/jpeg but its size cannot be read (a damaged file)');
  });

  it('names kept files by their hash and type, and reads back only names it gives', () => {
    const sha = 'a'.repeat(64);
    assert.equal(mediaPath({ sha256: sha, extension: 'webp' }), `/media/${sha}.webp`);
    assert.deepEqual(parseMediaName(`${sha}.webp`), { sha256: sha, extension: 'webp' });
    for (const name of [`${sha}.svg`, `${sha}.PNG`, `${'A'.repeat(64)}.png`, `${sha}`, `${sha}.png.png`, `../${sha}.png`, `${sha.slice(1)}.png`]) {
      assert.equal(parseMediaName(name), undefined, name);
    }
  });
});
