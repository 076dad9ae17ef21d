/**
 * Hostile HTML against the sanitiser of callers without `unfiltered_html`, and against `plainText`: every vector
 * goes through the current implementation (sanitize-html) and through the hand-written filter it replaced (kept
 * in test/helpers/legacy-kses.ts for this comparison only), and each output is parsed with htmlparser2 to find
 * anything that could run (test/helpers/html-safety.ts). The current one must leave nothing; what the old one
 * let through is pinned below, so the comparison stays a real assertion.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOSTILE_HTML as CORPUS, elementsIn, executableVectors, isScriptUrl } from '../../../test/helpers/html-safety.js';
import { legacyPlainText, legacySanitizeHtml } from '../../../test/helpers/legacy-kses.js';
import { plainText, sanitizeHtml } from './html.js';

/**
 * What the hand-written filter let through, found by this corpus. Its URL check deleted numeric entities instead
 * of decoding them and ignored named ones, so `javascript&#x3a;`, `javascript&colon;`, `java&Tab;script:`,
 * `java&NewLine;script:` and a scheme written wholly in entities looked scheme-less to it and kept their `href`,
 * which a browser decodes to `javascript:`. Its `plainText` kept a tag that has no `>` as it was, so the markup
 * around the field completes it.
 */
const LEGACY_SANITIZE_LEAKS = [
  'colon as hex entity',
  'colon as named entity',
  'named newline entity inside the scheme',
  'named tab entity inside the scheme',
  'whole scheme as entities',
];
const LEGACY_PLAIN_TEXT_LEAKS = ['a unclosed', 'img unclosed'];

function leaks(sanitise: (html: string) => string): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const [name, html] of Object.entries(CORPUS)) {
    const vectors = executableVectors(sanitise(html));
    if (vectors.length > 0) found[name] = vectors;
  }
  return found;
}

function plainTextLeaks(strip: (text: string) => string): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const [name, html] of Object.entries(CORPUS)) {
    const elements = elementsIn(strip(html));
    if (elements.length > 0) found[name] = elements;
  }
  return found;
}

describe('hostile HTML', () => {
  it('the checker finds each kind of vector it is meant to find', () => {
    assert.deepEqual(executableVectors('<b>ok</b> <a href="https://x.example/?a=1&amp;b=2" title="javascript:no">x</a>'), []);
    assert.ok(executableVectors('<img src=x onerror=alert(1)>').some((f) => f.includes('onerror')));
    assert.ok(executableVectors('<a href="java&Tab;script:alert(1)">x</a>').some((f) => f.startsWith('script URL')));
    assert.ok(executableVectors('<svg><a>x</a></svg>').includes('element <svg>'));
    assert.ok(executableVectors('<META http-equiv=refresh>').includes('element <meta>'));
    assert.ok(isScriptUrl(' \u0001java\tscript:x') && isScriptUrl('DATA:text/html,x') && !isScriptUrl('https://x.example/javascript:'));
    assert.deepEqual(elementsIn('a &lt;b&gt; c'), []);
    assert.deepEqual(elementsIn('a <b c'), ['b']);
  });

  it('sanitizeHtml (sanitize-html) leaves nothing executable', () => {
    assert.deepEqual(leaks(sanitizeHtml), {});
  });

  it('plainText (sanitize-html) leaves no element at all', () => {
    assert.deepEqual(plainTextLeaks(plainText), {});
    for (const html of Object.values(CORPUS)) assert.doesNotMatch(plainText(html), /</);
  });

  it('the previous hand-written filter let these through', () => {
    assert.deepEqual(Object.keys(leaks(legacySanitizeHtml)).sort(), LEGACY_SANITIZE_LEAKS);
    assert.deepEqual(Object.keys(plainTextLeaks(legacyPlainText)).sort(), LEGACY_PLAIN_TEXT_LEAKS);
  });

  it('keeps what is allowed while dropping what is not', () => {
    assert.equal(
      sanitizeHtml(
        '<p class="lead" onclick="x()">Hi <a href="mailto:a@b.example" target="_blank">mail</a> <img src="//cdn.example/a.png" alt="a"></p>',
      ),
      '<p class="lead">Hi <a href="mailto:a@b.example" target="_blank">mail</a> <img src="//cdn.example/a.png" alt="a" /></p>',
    );
    assert.equal(
      sanitizeHtml('<a href="tel:+33123">t</a><a href="ftp://f.example/x">f</a>'),
      '<a href="tel:+33123">t</a><a href="ftp://f.example/x">f</a>',
    );
    assert.equal(sanitizeHtml('<a href="java&#x61;script:alert(1)">x</a>'), '<a>x</a>');
    assert.equal(sanitizeHtml('<svg><style><img src=x onerror=alert(1)></style></svg>after'), 'after');
    assert.equal(sanitizeHtml('<b>Rock & roll</b>'), '<b>Rock &amp; roll</b>');
  });

  it('plainText returns text: tags gone, entities read, a lone < kept out of markup', () => {
    assert.equal(plainText('Corner of 5th &amp; Main <b>St</b>'), 'Corner of 5th & Main St');
    assert.equal(plainText('Caf&eacute;\n\n  du   Port'), 'Café du Port');
    assert.equal(plainText('a < b <script>alert(1)</script>'), 'a &lt; b');
    assert.equal(plainText('&lt;img src=x onerror=alert(1)&gt;'), '&lt;img src=x onerror=alert(1)>');
  });
});
