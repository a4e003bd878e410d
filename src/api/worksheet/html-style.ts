/**
 * The HTML worksheet's stylesheet (inline in the page: no external file or font). On screen a readable column;
 * in print a Letter page with the summary alone on page 1, the appendices from page 2, no table cut at the right
 * edge (fixed layouts whose long words wrap), no row split across pages, no focus ring.
 */
export const WORKSHEET_STYLE = `
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #1a1a1a;
  margin: 2rem auto; max-width: 60rem; padding: 0 1rem; }
h1 { font-size: 1.45rem; margin: 0 0 .5rem; }
h2 { font-size: 1.1rem; margin: 1.3rem 0 .4rem; border-bottom: 1px solid #999; padding-bottom: .15rem; }
h3 { font-size: 1rem; margin: 1rem 0 .3rem; }
p { margin: .3rem 0; }
dl { margin: 0; display: flex; flex-wrap: wrap; gap: .2rem 2rem; }
dl div { display: flex; gap: .4rem; align-items: baseline; }
dt { color: #444; }
dd { margin: 0; font-weight: 600; }
dl.who { font-size: 1.1em; margin-bottom: .3rem; }
dl.who dd { min-width: 12rem; border-bottom: 1px solid #777; }
dl.meta { color: #333; font-size: .9em; }
table { border-collapse: collapse; width: 100%; margin: .3rem 0 .5rem; table-layout: fixed; }
th, td { border: 1px solid #aaa; padding: .2rem .4rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
thead th { background: #eee; font-weight: 600; }
tbody th { font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
th.group { text-align: center; }
tr.total td, tr.total th { font-weight: 700; background: #f6f6f6; }
tr.chosen td, tr.chosen th { font-weight: 600; }
.figure { font-size: 1.05rem; }
.figure strong { font-size: 1.35rem; margin-right: .75rem; }
.arith { font-variant-numeric: tabular-nums; white-space: nowrap; }
td.arith { white-space: normal; }
.cite { color: #333; font-size: .85em; font-style: italic; }
.small { font-size: .9em; color: #333; }
p.small { font-size: .85em; }
.term-note { display: block; font-size: .9em; font-weight: 400; color: #333; }
ul { margin: .2rem 0; padding-left: 1.3rem; }
li { margin-bottom: .2rem; }
.signatures { margin-top: 2.2rem; display: grid; grid-template-columns: 2.2fr 1fr 2.2fr 1fr; gap: 1.6rem 1.4rem; }
.signatures div { border-top: 1px solid #333; padding-top: .15rem; font-size: .85em; color: #333; }
table.steps td.formula { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12px; }
table.steps td ul { list-style: none; padding: 0; margin: 0; }
table.steps tr { break-inside: avoid; page-break-inside: avoid; }
ol.sources li { font-size: .85em; }
a { color: inherit; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; }
@media print {
  @page { size: letter; margin: 12mm; }
  body { margin: 0; max-width: none; padding: 0 2px; font-size: 8.5pt; line-height: 1.3; }
  h1 { font-size: 14pt; margin-bottom: 3pt; }
  h2 { font-size: 10.5pt; margin: 7pt 0 3pt; break-after: avoid; page-break-after: avoid; }
  h3 { font-size: 9.5pt; margin: 6pt 0 2pt; break-after: avoid; page-break-after: avoid; }
  .figure { font-size: 10pt; }
  .figure strong { font-size: 14pt; }
  th, td { padding: 1.5pt 3pt; }
  table { font-size: 8pt; margin: 2pt 0 4pt; }
  table.steps { font-size: 7pt; }
  table.steps td.formula { font-size: 6.5pt; }
  tr, li { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  thead th, tr.total td, tr.total th { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .summary { break-after: page; page-break-after: always; }
  .summary ul { font-size: 8pt; }
  li { margin-bottom: 1pt; }
  .signatures { margin-top: 20pt; gap: 12pt 14pt; break-inside: avoid; page-break-inside: avoid; }
  a { text-decoration: none; }
  *:focus, *:focus-visible { outline: none !important; box-shadow: none !important; }
}
`;
