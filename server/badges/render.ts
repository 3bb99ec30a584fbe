import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import { BADGE_PAGE_POINTS, type BadgeSize } from '../../core/badges';
import type { BadgeGuest } from '../../db/repositories/badge-prints';
import { fontName, loadFont, textRuns, visualOrder, type DrawnRun, type FontFamily, type FontWeight } from './fonts';
import { chooseCuts, enoughSize, nameCuts } from './name-lines';

/**
 * One badge per page, laid out for its label: the first name as large as the label allows
 * (about 11 mm capitals on A6, readable at two metres), the last name, the company, the
 * registration type in a dark band, and the guest's barcode as a QR code. A long name wraps
 * onto lines to keep capitals of at least 6 mm (name-lines.ts); other lines too long for their
 * width are set smaller until they fit: never cut.
 */

/** A line of text: centred in `width` from `x`, its baseline at `y`, at most `size` points. */
interface Line {
  x: number;
  y: number;
  width: number;
  size: number;
}

/** Where the name goes: `top` and `height` of the block, the largest sizes of the first and last name. */
interface NameBlock {
  x: number;
  top: number;
  width: number;
  height: number;
  first: number;
  last: number;
}

interface Layout {
  name: NameBlock;
  company: Line;
  /** The registration type, white on a dark band. */
  band: { x: number; y: number; width: number; height: number; size: number };
  qr: { x: number; y: number; side: number };
}

function layoutOf(size: BadgeSize): Layout {
  const [w, h] = BADGE_PAGE_POINTS[size];
  switch (size) {
    case 'A6': {
      const m = 18;
      return {
        name: { x: m, top: 22, width: w - 2 * m, height: 146, first: 46, last: 34 },
        company: { x: m, y: 187, width: w - 2 * m, size: 16 },
        qr: { x: (w - 112) / 2, y: 198, side: 112 },
        band: { x: 0, y: h - 82, width: w, height: 52, size: 20 },
      };
    }
    case '62x100mm': {
      const m = 10;
      return {
        name: { x: m, top: 8, width: w - 2 * m, height: 118, first: 32, last: 26 },
        company: { x: m, y: 139, width: w - 2 * m, size: 12 },
        qr: { x: (w - 68) / 2, y: 147, side: 68 },
        band: { x: 0, y: h - 58, width: w, height: 38, size: 14 },
      };
    }
    case '4x3in': {
      const m = 14;
      const qr = 84;
      return {
        name: { x: m, top: 14, width: w - 2 * m, height: 78, first: 38, last: 24 },
        company: { x: m, y: 112, width: w - 3 * m - qr, size: 13 },
        qr: { x: w - m - qr, y: h - m - qr, side: qr },
        band: { x: m, y: h - m - 40, width: w - 3 * m - qr, height: 40, size: 15 },
      };
    }
  }
}

type Doc = InstanceType<typeof PDFDocument>;

/**
 * A parsed fontkit font as PDFKit takes it (PDFKit 0.20 accepts one wherever a font file goes;
 * @types/pdfkit still lists only files and bytes).
 */
const asFontSource = (font: ReturnType<typeof loadFont>) => font as unknown as PDFKit.Mixins.PDFFontSource;

// Arabic is shaped (joining forms, the required lam-alef) without the optional ligatures
// (the Allah ligature, contextual alternates): with them a PDF reader gives the name back
// with its words reordered, so a search in the PDF or a copied name would fail.
const ARABIC_FEATURES = { liga: false, dlig: false, calt: false } as unknown as PDFKit.Mixins.OpenTypeFeatures[];

/** Registers a font with this document the first time the document uses it. */
function useFont(doc: Doc, used: Set<string>, family: FontFamily, weight: FontWeight): void {
  const name = fontName(family, weight);
  if (!used.has(name)) {
    doc.registerFont(name, asFontSource(loadFont(family, weight)));
    used.add(name);
  }
  doc.font(name);
}

/** Text cut into runs of one font each, with their widths at 1 pt (widths scale with the size). */
interface Measured {
  runs: DrawnRun[];
  widths: number[];
  width: number;
}

const featuresOf = (family: FontFamily) => (family === 'arabic' ? ARABIC_FEATURES : undefined);

function measure(doc: Doc, used: Set<string>, text: string, weight: FontWeight): Measured {
  const runs = visualOrder(textRuns(text, weight));
  // A space between runs is a quarter of an em.
  const widths = runs.map((run) => {
    useFont(doc, used, run.family, weight);
    return doc.fontSize(1).widthOfString(run.text, { features: featuresOf(run.family) }) + (run.spaceAfter ? 0.25 : 0);
  });
  return { runs, widths, width: widths.reduce((a, b) => a + b, 0) };
}

/** Draws measured text centred in `width` from `x`, its baseline at `y`. */
function drawMeasured(doc: Doc, used: Set<string>, text: Measured, weight: FontWeight, x: number, width: number, y: number, size: number): void {
  let left = x + (width - text.width * size) / 2;
  text.runs.forEach((run, i) => {
    useFont(doc, used, run.family, weight);
    doc.fontSize(size).text(run.text, left, y, { lineBreak: false, baseline: 'alphabetic', features: featuresOf(run.family) });
    left += text.widths[i] * size;
  });
}

/** Draws `text` on one line, centred, as large as `line.size` or smaller to fit its width. */
function drawLine(doc: Doc, used: Set<string>, text: string, weight: FontWeight, line: Line): void {
  const measured = measure(doc, used, text, weight);
  if (measured.runs.length === 0) return;
  drawMeasured(doc, used, measured, weight, line.x, line.width, line.y, Math.min(line.size, line.width / measured.width));
}

const LINE_HEIGHT = 1.22;
// Lines a name (first or last) may take before it is set smaller than MIN_CAP_MM.
const NAME_MAX_LINES = 3;
/** The smallest capitals a name is set in while wrapping can keep it there: readable at two metres. */
export const MIN_CAP_MM = 6;
const MM = 72 / 25.4;

/** The font size whose capitals are `mm` high in the name's font. */
export function sizeForCapHeight(mm: number): number {
  const font = loadFont('latin', 'bold');
  return (mm * MM) / (font.capHeight / font.unitsPerEm);
}

/** A name as set: the text it reads as, its lines and each line's size. */
export interface SetName {
  text: string;
  lines: string[];
  sizes: number[];
}

/**
 * The first and last name on a label, each as large as the block allows: a name too long for
 * one line wraps (at spaces and after hyphens) onto up to three before it is set below
 * MIN_CAP_MM, and the block fits its height by shrinking the largest lines first. `widthOf`
 * gives a line's width at 1 pt.
 */
export function namePlan(size: BadgeSize, guest: Pick<BadgeGuest, 'first_name' | 'last_name'>, widthOf: (line: string) => number): SetName[] {
  const block = layoutOf(size).name;
  const parts = [
    { text: guest.first_name.trim(), max: block.first },
    { text: guest.last_name.trim(), max: block.last },
  ].filter((part) => widthOf(part.text) > 0);
  const min = sizeForCapHeight(MIN_CAP_MM);
  const choices = parts.map((part) => ({
    cuts: nameCuts(part.text, widthOf, { width: block.width, max: part.max, maxLines: NAME_MAX_LINES }),
    enough: enoughSize(part.max, min),
  }));
  const { fits, sizes } = chooseCuts(choices, LINE_HEIGHT, block.height, min);
  let index = 0;
  return fits.map((fit, i) => ({ text: parts[i].text, lines: fit.lines, sizes: fit.lines.map(() => sizes[index++]) }));
}

/** The name block drawn as namePlan sets it, centred in its height. Nothing is ever cut. */
function drawName(doc: Doc, used: Set<string>, guest: BadgeGuest, size: BadgeSize): void {
  const block = layoutOf(size).name;
  const names = namePlan(size, guest, (line) => measure(doc, used, line, 'bold').width);
  const height = names.reduce((sum, n) => sum + n.sizes.reduce((a, b) => a + b * LINE_HEIGHT, 0), 0);
  let top = block.top + (block.height - height) / 2;
  for (const name of names) {
    // A name on several lines is one span of text for PDF readers: it reads back as typed
    // (pdftotext and search would otherwise drop the hyphen at a line's end).
    const span = name.lines.length > 1;
    if (span) doc.markContent('Span', { actual: name.text } as PDFKit.Mixins.MarkingOptions);
    name.lines.forEach((line, i) => {
      const lineSize = name.sizes[i];
      drawMeasured(doc, used, measure(doc, used, line, 'bold'), 'bold', block.x, block.width, top + lineSize * 0.98, lineSize);
      top += lineSize * LINE_HEIGHT;
    });
    if (span) endSpan(doc);
  }
}

/**
 * Ends a marked span under the coordinates PDFKit draws text in (the page flipped back), as
 * poppler places a span's text by the transformation in force when the span ends.
 */
function endSpan(doc: Doc): void {
  doc.save();
  doc.transform(1, 0, 0, -1, 0, doc.page.height);
  doc.endMarkedContent();
  doc.restore();
}

/** The QR code as filled squares (vector: sharp at any printer resolution), two modules of quiet zone inside `side`. */
function drawQr(doc: Doc, value: string, qr: Layout['qr']): void {
  const { modules } = QRCode.create(value, { errorCorrectionLevel: 'M' });
  const count = modules.size;
  const unit = qr.side / (count + 4);
  for (let row = 0; row < count; row++) {
    // Each row's dark stretches as one rectangle each.
    for (let col = 0; col < count; ) {
      if (!modules.get(row, col)) {
        col++;
        continue;
      }
      const start = col;
      while (col < count && modules.get(row, col)) col++;
      doc.rect(qr.x + (start + 2) * unit, qr.y + (row + 2) * unit, (col - start) * unit, unit);
    }
  }
  doc.fillColor('black').fill();
}

export interface BadgeDocument {
  doc: Doc;
  /** Adds the next guest's badge as a page. */
  add(guest: BadgeGuest): void;
}

/** A streaming PDF of badges of one size: pipe `doc` somewhere, `add` each guest, then `doc.end()`. */
export function badgeDocument(size: BadgeSize, title: string): BadgeDocument {
  // The starting font is one badges use: PDFKit's default (Helvetica) would be read from its
  // metrics file for every document, a few milliseconds each, and never drawn with.
  const font = asFontSource(loadFont('latin', 'bold')) as unknown as string;
  const doc = new PDFDocument({ size: [...BADGE_PAGE_POINTS[size]], margin: 0, autoFirstPage: false, font, info: { Title: title, Creator: 'Doorlist' } });
  const layout = layoutOf(size);
  const used = new Set<string>();
  const [width] = BADGE_PAGE_POINTS[size];
  return {
    doc,
    add(guest) {
      doc.addPage({ size: [...BADGE_PAGE_POINTS[size]], margin: 0 });
      doc.fillColor('black');
      drawName(doc, used, guest, size);
      if (guest.company) {
        doc.fillColor('#333333');
        drawLine(doc, used, guest.company, 'regular', layout.company);
      }
      const { band } = layout;
      doc.rect(band.x, band.y, band.width, band.height).fillColor('#1f2937').fill();
      doc.fillColor('white');
      const inset = Math.min(12, width * 0.05);
      drawLine(doc, used, guest.registration_type_name, 'bold', { x: band.x + inset, y: band.y + band.height / 2 + band.size * 0.36, width: band.width - 2 * inset, size: band.size });
      drawQr(doc, guest.barcode, layout.qr);
    },
  };
}
