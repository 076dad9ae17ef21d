import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { autop, escHtml, plainText, sanitizeHtml, texturize } from './html.js';

describe('html', () => {
  it('wraps paragraphs like wpautop', () => {
    assert.equal(autop('Event 01 description'), '<p>Event 01 description</p>');
    assert.equal(autop('One\n\nTwo\nlines'), '<p>One</p>\n<p>Two<br />\nlines</p>');
    assert.equal(autop('<div>block</div>'), '<div>block</div>');
    assert.equal(autop('   '), '');
    assert.equal(autop('  One line, trimmed \t'), '<p>One line, trimmed</p>');
    assert.equal(autop('Two\r\nlines'), '<p>Two<br />\nlines</p>');
    assert.equal(autop(' <ul><li>a block on one line</li></ul> '), '<ul><li>a block on one line</li></ul>');
    assert.equal(autop(''), '');
  });

  it('keeps safe HTML and drops the rest', () => {
    assert.equal(sanitizeHtml('<p onclick="x()">Hi <b>there</b></p>'), '<p>Hi <b>there</b></p>');
    assert.equal(sanitizeHtml('a<script>alert(1)</script>b'), 'ab');
    assert.equal(sanitizeHtml('<a href="javascript:alert(1)" title="t">x</a>'), '<a title="t">x</a>');
    assert.equal(sanitizeHtml('<a href="https://example.org/?a=1&b=2">x</a>'), '<a href="https://example.org/?a=1&amp;b=2">x</a>');
    assert.equal(sanitizeHtml('<img src=x onerror=alert(1)>'), '<img src="x" />');
    assert.equal(sanitizeHtml('<iframe src="//evil"></iframe>ok'), 'ok');
    assert.equal(sanitizeHtml('1 < 2'), '1 &lt; 2');
  });

  it('strips tags to plain text', () => {
    assert.equal(plainText(' <b>100,  Avenue</b>\n du Temple '), '100, Avenue du Temple');
  });

  it('applies title typography', () => {
    assert.equal(texturize('Event 1'), 'Event 1');
    assert.equal(texturize('"Quoted" title'), '&#8220;Quoted&#8221; title');
    assert.equal(texturize("Rock 'n' roll's best"), 'Rock &#8216;n&#8217; roll&#8217;s best');
    assert.equal(texturize('A -- B ... C'), 'A &#8212; B &#8230; C');
  });

  it('leaves a title with nothing to change as it is, trimmed, tags and all', () => {
    assert.equal(texturize('  Jazz night 12 \n'), 'Jazz night 12');
    assert.equal(texturize('<b>Bold</b> <i>title</i>'), '<b>Bold</b> <i>title</i>');
    assert.equal(texturize('\u00a0Fête de la musique\u00a0'), 'Fête de la musique');
    // one character the replacements look for, inside a tag or out, takes the long way
    assert.equal(texturize('<a href="x">Rock</a> - Pop'), '<a href="x">Rock</a> &#8211; Pop');
    assert.equal(texturize('Wait...'), 'Wait&#8230;');
  });

  it('escapes HTML without double-encoding entities', () => {
    assert.equal(escHtml('http://a.b/?x=1&y=2'), 'http://a.b/?x=1&amp;y=2');
    assert.equal(escHtml('&amp; <"\'>'), '&amp; &lt;&quot;&#039;&gt;');
  });
});
