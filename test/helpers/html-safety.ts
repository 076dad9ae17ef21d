/**
 * Finds what in a piece of HTML could run script when a browser renders it: the output of our sanitiser is
 * parsed with htmlparser2 (the parser sanitize-html itself uses, entities decoded as a browser decodes them) and
 * every element and attribute is checked. With a corpus of hostile HTML, used by the sanitiser's unit test and
 * the e2e test that sends it through the API.
 */
import { Parser } from 'htmlparser2';

/** Elements that run script, load documents or change how the page around them is read. */
const FORBIDDEN_ELEMENTS = new Set([
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'svg',
  'math',
  'object',
  'embed',
  'applet',
  'form',
  'base',
  'meta',
  'link',
  'template',
  'noscript',
  'xmp',
  'textarea',
]);

/** Attributes whose value is only text to a browser; every other attribute may be a URL. */
const TEXT_ATTRIBUTES = new Set([
  'title',
  'alt',
  'class',
  'id',
  'lang',
  'dir',
  'datetime',
  'scope',
  'width',
  'height',
  'colspan',
  'rowspan',
  'start',
]);

/**
 * A URL a browser would run or render as a document: the scheme is read after entity decoding (done by the
 * parser) and after dropping what browsers drop from a URL (leading C0 controls and spaces, tabs and newlines
 * anywhere).
 */
export function isScriptUrl(value: string): boolean {
  const cleaned = value
    // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers skip leading control characters in a URL, so must this check
    .replace(/^[\u0000-\u0020]+/, '')
    .replace(/[\t\n\r]/g, '')
    .toLowerCase();
  return /^(javascript|vbscript|data|livescript|mocha):/.test(cleaned);
}

/**
 * Parses `html` as a fragment inside a page, the way our output is used: markup follows it, so a tag it leaves
 * open is completed by what comes next (at the very end of a document a browser would drop it instead).
 */
function parseInPage(html: string, onElement: (name: string, attributes: Record<string, string>) => void): void {
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (!(name === 'br' && 'data-page-end' in attributes)) onElement(name, attributes);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(`${html}\n<br data-page-end>`);
  parser.end();
}

/** What in `html` could execute, one line per finding; empty when nothing could. */
export function executableVectors(html: string): string[] {
  const found: string[] = [];
  parseInPage(html, (name, attributes) => {
    if (FORBIDDEN_ELEMENTS.has(name)) found.push(`element <${name}>`);
    for (const [attribute, value] of Object.entries(attributes)) {
      if (attribute.startsWith('on')) found.push(`event handler ${attribute} on <${name}>`);
      else if (attribute === 'style' && /url\s*\(|expression\s*\(|javascript:/i.test(value))
        found.push(`style with a URL or expression on <${name}>`);
      else if (attribute === 'srcdoc') found.push(`srcdoc on <${name}>`);
      else if (!TEXT_ATTRIBUTES.has(attribute) && isScriptUrl(value)) found.push(`script URL in ${attribute} on <${name}>: ${value}`);
    }
  });
  // belt and braces for parser differences: a forbidden element's tag anywhere in the raw output
  const raw = /<\/?(script|style|iframe|svg|math|object|embed|form|base|meta)[\s/>]/i.exec(html);
  if (raw && !found.some((f) => f === `element <${raw[1].toLowerCase()}>`)) found.push(`raw tag ${raw[0]}`);
  return found;
}

/** Elements of any kind in `text` (for fields that must be plain text). */
export function elementsIn(text: string): string[] {
  const found: string[] = [];
  parseInPage(text, (name) => found.push(name));
  return found;
}

/** Hostile HTML by name: event handlers, script URLs however spelt, SVG/MathML tricks, broken markup. */
export const HOSTILE_HTML: Readonly<Record<string, string>> = {
  // event handler attributes
  'onerror unquoted': '<img src=x onerror=alert(1)>',
  'onerror upper case': '<IMG SRC="x" ONERROR="alert(1)">',
  'onerror mixed case': '<img src=x OnErRoR=alert(1)>',
  'onload on body': '<body onload=alert(1)>text',
  'onmouseover single quotes': "<p onmouseover='alert(1)'>x</p>",
  'handlers without spaces between': '<img src="x"onerror="alert(1)"onload="alert(2)">',
  'slashes as separators': '<img/src=x/onerror=alert(1)>',
  'tab and newline before =': '<img src=x onerror\t=alert(1)><img src=x onerror\n=alert(2)>',
  'onclick on a link': '<a href="#" onclick="alert(1)">x</a>',
  'onfocus autofocus': '<input autofocus onfocus=alert(1)>',
  'ontoggle on details': '<details open ontoggle=alert(1)>x</details>',
  'onerror on source': '<video><source onerror=alert(1)></video>',
  'backtick-quoted value': '<img src=`x` onerror=alert(1)>',
  'eval of src': '<img src=x:alert(alt) onerror=eval(src) alt=0>',
  // script-like URL schemes
  'javascript: href': '<a href="javascript:alert(1)">x</a>',
  'javascript: mixed case': '<a href="JaVaScRiPt:alert(1)">x</a>',
  'javascript: unquoted': '<a href=javascript:alert(1)>x</a>',
  'javascript: single-quoted': "<a href='javascript:alert(1)'>x</a>",
  'hex entity in scheme': '<a href="jav&#x61;script:alert(1)">x</a>',
  'decimal entity in scheme': '<a href="jav&#97;script:alert(1)">x</a>',
  'whole scheme as entities': '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>',
  'entities without semicolons': '<a href="&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A;alert(1)">x</a>',
  'zero-padded entity': '<a href="&#0000106avascript:alert(1)">x</a>',
  'colon as hex entity': '<a href="javascript&#x3a;alert(1)">x</a>',
  'colon as named entity': '<a href="javascript&colon;alert(1)">x</a>',
  'tab inside the scheme': '<a href="java\tscript:alert(1)">x</a>',
  'newline inside the scheme': '<a href="java\nscript:alert(1)">x</a>',
  'tab entity inside the scheme': '<a href="java&#x09;script:alert(1)">x</a>',
  'named tab entity inside the scheme': '<a href="java&Tab;script:alert(1)">x</a>',
  'named newline entity inside the scheme': '<a href="java&NewLine;script:alert(1)">x</a>',
  'leading control characters': '<a href="\u0001\u0002 javascript:alert(1)">x</a>',
  'leading control character as entity': '<a href="&#1;javascript:alert(1)">x</a>',
  'vbscript:': '<a href="vbscript:msgbox(1)">x</a>',
  'data: HTML': '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
  'data: SVG image with > inside': '<img src="data:image/svg+xml,<svg onload=alert(1)>">',
  'javascript: in img src': '<img src="javascript:alert(1)">',
  'javascript: in blockquote cite': '<blockquote cite="javascript:alert(1)">q</blockquote>',
  'vbscript: in q cite': '<q cite="vbscript:x">q</q>',
  formaction: '<button formaction="javascript:alert(1)">x</button>',
  // svg and math
  'svg onload': '<svg onload=alert(1)>',
  'svg style img': '<svg><style><img src=x onerror=alert(1)></style></svg>',
  'svg style img, unclosed': '<svg><style><img src=x onerror=alert(1)>',
  'math mglyph style img': '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  'math mglyph style comment (mXSS)':
    '<math><mtext><table><mglyph><style><!--</style><img title="--&gt;&lt;/mglyph&gt;&lt;img src=1 onerror=alert(1)&gt;">',
  'svg link': '<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">x</text></a></svg>',
  'svg animate href': '<svg><animate attributeName=href values="javascript:alert(1)" /></svg>',
  'svg p style (mXSS)': '<svg></p><style><a id="</style><img src=1 onerror=alert(1)>">',
  'math style': '<math><style><img src=x onerror=alert(1)></style></math>',
  'svg textarea': '<svg><textarea><img src=x onerror=alert(1)></textarea></svg>',
  'form math mglyph': '<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>',
  // unclosed and malformed tags
  'img unclosed': '<img src=x onerror=alert(1)//',
  'a unclosed': '<a href="javascript:alert(1)"',
  'a without end tag': '<a href="javascript:alert(1)">x',
  'tag then text then tag': '<img src=x onerror=alert(1) <b>bold</b>',
  'doubled brackets': '<<script>script>alert(1)<</script>/script>',
  'script split by script': '<scr<script>ipt>alert(1)</scr</script>ipt>',
  'script without closing bracket': '<script>alert(1)</script',
  'script with src': '<script src=//evil.example/x.js></script>',
  'script upper case': '<SCRIPT>alert(1)</SCRIPT>',
  'script with newline in tags': '<script\n>alert(1)</script\n>',
  'script with slash attribute': '<script/x>alert(1)</script>',
  // comments
  'img in a comment': '<!--<img src=x onerror=alert(1)>-->',
  'comment closed by --!>': '<!-- --!><img src=x onerror=alert(1)>-->',
  'abrupt empty comment': '<!--><img src=x onerror=alert(1)>-->',
  'comment closed by --!> without -->': '<!--a--!><img src=x onerror=alert(1)>',
  'nested comments': '<!-- <!-- nested --> <img src=x onerror=alert(1)> -->',
  'bogus comment': '<! foo="<img src=x onerror=alert(1)>">',
  'processing instruction': '<?xml ><img src=x onerror=alert(1)>?>',
  CDATA: '<![CDATA[<img src=x onerror=alert(1)>]]>',
  // entities
  'escaped script': '&lt;script&gt;alert(1)&lt;/script&gt;',
  'numeric-escaped img': '&#60;img src=x onerror=alert(1)&#62;',
  'double-escaped img': '&amp;lt;img src=x onerror=alert(1)&amp;gt;',
  // attribute-breaking quotes
  'quote as entity in title': '<a href="https://ok.example/" title="&quot; onmouseover=&quot;alert(1)">x</a>',
  'double quote inside single-quoted title': '<a title=\'" onmouseover="alert(1)\'>x</a>',
  'stray quote after title': '<a title="x" onmouseover="alert(1)"">x</a>',
  'escaped quote in alt': '<img src="x" alt="\\"" onerror="alert(1)">',
  'backtick in alt': '<img alt="x`" onerror=alert(1)>',
  'quote in unquoted value': '<img src=x" onerror="alert(1)>',
  // dangerous elements
  'iframe javascript:': '<iframe src="javascript:alert(1)"></iframe>',
  'iframe srcdoc': '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  'iframe unclosed': '<iframe src=//evil.example/>',
  'form action': '<form action="javascript:alert(1)"><button>x</button></form>',
  'style element': '<style>body{background:url(javascript:alert(1))}</style>',
  'style attribute': '<p style="background:url(javascript:alert(1))">x</p>',
  'base href': '<base href="javascript:alert(1)//">',
  'meta refresh': '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  'object data': '<object data="javascript:alert(1)"></object>',
  'embed src': '<embed src="javascript:alert(1)">',
  'link stylesheet': '<link rel=stylesheet href="javascript:alert(1)">',
  'noscript title (mXSS)': '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  xmp: '<xmp><img src=x onerror=alert(1)></xmp>',
  textarea: '<textarea><img src=x onerror=alert(1)></textarea>',
  title: '<title><img src=x onerror=alert(1)></title>',
  plaintext: '<plaintext><img src=x onerror=alert(1)>',
  template: '<template><img src=x onerror=alert(1)></template>',
  'select option': '<select><option><img src=x onerror=alert(1)></option></select>',
  noembed: '<noembed><img src=x onerror=alert(1)></noembed>',
};
