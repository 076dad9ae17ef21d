/**
 * The image downloads of a site import and private addresses (issue 15: "no private or loopback targets unless
 * IMPORT_ALLOW_PRIVATE"). Through the import itself this cannot be shown — the fixture site is on loopback, so
 * an import of it needs private addresses allowed — so the downloader is driven here as the importer drives it,
 * with its own client: an image on a loopback address, and one whose name resolves to a private address, are
 * refused without a request reaching them (a warning, the record without an image); allowed, the same file comes.
 */
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { isPrivateAddress } from '../../src/domain/imports/fetch.js';
import { TecClient } from '../../src/domain/imports/tec/tec.client.js';
import { TecMedia } from '../../src/domain/imports/tec/tec.media.js';
import { emptyReport } from '../../src/domain/imports/tec/tec.report.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { png, sha256 } from '../helpers/tec-images.js';

describe('image downloads and private addresses', () => {
  let db: TestDatabase;
  let server: Server;
  let port: number;
  let hits = 0;
  const bytes = png(40, 30);
  before(async () => {
    db = await createTestDatabase();
    server = createServer((_req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(bytes);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await db.drop();
  });

  const downloader = (allowPrivate: boolean, pass: string) => {
    const client = new TecClient({ allowPrivate, concurrency: 2, userAgent: 'test', retryBaseMs: 1, maxFailures: 5 });
    return { client, media: new TecMedia(db.storage, client, { pass, dryRun: false, stamp: () => '2026-11-24 10:00:00' }) };
  };

  it('refuses an image on a loopback or private address unless private addresses are allowed', async () => {
    const loopback = `http://127.0.0.1:${port}/uploads/a.png`;
    const name = hostname();
    const { address } = await lookup(name);
    assert.ok(isPrivateAddress(address), `${name} resolves to ${address}: this check needs a machine whose name is private`);
    const named = `http://${name}:${port}/uploads/b.png`;
    const { client, media } = downloader(false, 'guarded');
    try {
      await media.prepare([
        { id: 1, image: { id: 7, url: loopback } },
        { id: 2, venue: { id: 3, image: { id: 8, url: named } } },
      ]);
    } finally {
      client.close();
    }
    assert.equal(media.result(loopback)?.copy, undefined);
    assert.equal(media.result(loopback)?.problem, 'refused: 127.0.0.1 is a private or reserved address');
    assert.equal(media.result(named)?.problem, `refused: ${name} resolves to ${address}, a private or reserved address`);
    assert.equal(hits, 0, 'no request reached the server');
    const report = emptyReport();
    media.flush(report);
    assert.deepEqual(
      report.warnings.map((w) => [w.resource, w.remote_id, w.reason]),
      [
        ['images', '7', `${loopback}: refused: 127.0.0.1 is a private or reserved address; imported without an image`],
        ['images', '8', `${named}: refused: ${name} resolves to ${address}, a private or reserved address; imported without an image`],
      ],
    );
    assert.equal(report.resources.images.failed, 2);
    assert.equal((await db.storage.db.selectFrom('media_sources').selectAll().execute()).length, 0);

    const open = downloader(true, 'allowed');
    try {
      await open.media.prepare([{ id: 1, image: { id: 7, url: loopback } }]);
    } finally {
      open.client.close();
    }
    assert.equal(hits, 1);
    assert.deepEqual(open.media.result(loopback), {
      copy: { sha256: sha256(bytes), mimeType: 'image/png', extension: 'png', size: bytes.length, width: 40, height: 30 },
    });
    const stored = await db.storage.media.read(sha256(bytes));
    assert.ok(stored?.bytes.equals(bytes), 'the bytes kept are the bytes served');
  });
});
