import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import { BADGE_PAGE_POINTS, type BadgeSize } from '../../core/badges';
import type { BadgeGuest } from '../../db/repositories/badge-prints';
import { fontName, loadFont, textRuns, visualOrder, type FontFamily, type FontWeight } from './fonts';

/**
 * One badge per page, laid out for its label: the first name as large as the label allows
 * (about 11 mm capitals on A6, readable at two metres), the last name, the company, the
 * registration type in a dark band, and the guest's barcode as a QR code. A line too long for
 * its width is set smaller until it fits: names are never cut.
 */

/** A line of text: centred in `width` from `x`, its baseline at `y`, at most `size` points. */
interface Line {
  x: number;
  y: number;
  width: number;
  size: number;
}

interface Layout {
  first: Line;
  last: Line;
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
        first: { x: m, y: 92, width: w - 2 * m, size: 44 },
        last: { x: m, y: 132, width: w - 2 * m, size: 30 },
        company: { x: m, y: 168, width: w - 2 * m, size: 16 },
        qr: { x: (w - 120) / 2, y: 190, side: 120 },
        band: { x: 0, y: h - 82, width: w, height: 52, size: 20 },
      };
    }
    case '62x100mm': {
      const m = 10;
      return {
        first: { x: m, y: 56, width: w - 2 * m, size: 32 },
        last: { x: m, y: 84, width: w - 2 * m, size: 21 },
        company: { x: m, y: 108, width: w - 2 * m, size: 12 },
        qr: { x: (w - 90) / 2, y: 122, side: 90 },
        band: { x: 0, y: h - 58, width: w, height: 38, size: 14 },
      };
    }
    case '4x3in': {
      const m = 14;
      const qr = 84;
      return {
        first: { x: m, y: 52, width: w - 2 * m, size: 38 },
        last: { x: m, y: 82, width: w - 2 * m, size: 24 },
        company: { x: m, y: 112, width: w - 3 * m - qr, size: 13 },
        qr: { x: w - m - qr, y: h - m - qr, side: qr },
        band: { x: m, y: h - m - 40, width: w - 3 * m - qr, height: 40, size: 15 },
      };
    }
  }
}

type Doc = InstanceType<typeof PDFDocument>;

// Arabic is shaped (joining forms, the required lam-alef) without the optional ligatures
// (the Allah ligature, contextual alternates): with them a PDF reader gives the name back
// with its words reordered, so a search in the PDF or a copied name would fail.
const ARABIC_FEATURES = { liga: false, dlig: false, calt: false } as unknown as PDFKit.Mixins.OpenTypeFeatures[];

/** Registers a font with this document the first time the document uses it. */
function useFont(doc: Doc, used: Set<string>, family: FontFamily, weight: FontWeight): void {
  const name = fontName(family, weight);
  if (!used.has(name)) {
    doc.registerFont(name, loadFont(family, weight) as never);
    used.add(name);
  }
  doc.font(name);
}

/** Draws `text` on one line, centred, as large as `line.size` or smaller to fit its width. */
function drawLine(doc: Doc, used: Set<string>, text: string, weight: FontWeight, line: Line): void {
  const runs = visualOrder(textRuns(text, weight));
  if (runs.length === 0) return;
  // Widths at 1 pt scale with the size; a space between runs is a quarter of an em.
  const widths = runs.map((run) => {
    useFont(doc, used, run.family, weight);
    return doc.fontSize(1).widthOfString(run.text) + (run.spaceAfter ? 0.25 : 0);
  });
  const width = widths.reduce((a, b) => a + b, 0);
  const size = Math.min(line.size, line.width / width);
  let x = line.x + (line.width - width * size) / 2;
  runs.forEach((run, i) => {
    useFont(doc, used, run.family, weight);
    doc.fontSize(size).text(run.text, x, line.y, { lineBreak: false, baseline: 'alphabetic', features: run.family === 'arabic' ? ARABIC_FEATURES : undefined });
    x += widths[i] * size;
  });
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
  const doc = new PDFDocument({ size: [...BADGE_PAGE_POINTS[size]], margin: 0, autoFirstPage: false, font: loadFont('latin', 'bold') as never, info: { Title: title, Creator: 'Doorlist' } });
  const layout = layoutOf(size);
  const used = new Set<string>();
  const [width] = BADGE_PAGE_POINTS[size];
  return {
    doc,
    add(guest) {
      doc.addPage({ size: [...BADGE_PAGE_POINTS[size]], margin: 0 });
      doc.fillColor('black');
      drawLine(doc, used, guest.first_name, 'bold', layout.first);
      drawLine(doc, used, guest.last_name, 'bold', layout.last);
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
