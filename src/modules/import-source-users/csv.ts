/**
 * Cells a spreadsheet would run as a formula start with one of these; such a cell is written with a
 * leading `'` (OWASP's CSV injection advice, what GitLab's CsvBuilder does).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export const neutralise = (cell: string) => (FORMULA_START.test(cell) ? `'${cell}` : cell);

/** One cell as Ruby's CSV writes it: an empty string is `""`, a cell with a separator, quote or line break is quoted. */
function cellText(value: string) {
  const cell = neutralise(value);
  if (cell === '' || /[",\r\n]/.test(cell)) return `"${cell.replace(/"/g, '""')}"`;
  return cell;
}

export const toCsv = (rows: string[][]) => rows.map((row) => row.map(cellText).join(',')).join('\n') + '\n';

/**
 * RFC 4180 rows (quoted cells may hold separators, quotes and line breaks). Stops after `maxRows`
 * rows with `tooManyRows`; null when the text is not CSV (an unterminated quote, text after a
 * closing quote).
 */
export function parseCsv(text: string, maxRows: number): { rows: string[][]; tooManyRows: boolean } | null {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let i = 0;
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const endRow = () => {
    row.push(cell);
    cell = '';
    if (!(row.length === 1 && row[0] === '')) rows.push(row);
    row = [];
  };
  while (i < input.length) {
    const c = input[i];
    if (c === '"' && cell === '') {
      i++;
      for (;;) {
        if (i >= input.length) return null;
        if (input[i] === '"') {
          if (input[i + 1] === '"') {
            cell += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        cell += input[i++];
      }
      if (i < input.length && input[i] !== ',' && input[i] !== '\n' && input[i] !== '\r') return null;
      // The cell is closed: `""` stays an empty cell, not the start of another quoted one.
      if (i < input.length && input[i] === ',') {
        row.push(cell);
        cell = '';
        i++;
        if (i >= input.length) endRow();
      }
      continue;
    }
    if (c === ',') {
      row.push(cell);
      cell = '';
      i++;
      if (i >= input.length) endRow();
    } else if (c === '\n' || c === '\r') {
      endRow();
      i += c === '\r' && input[i + 1] === '\n' ? 2 : 1;
      if (rows.length > maxRows) return { rows, tooManyRows: true };
    } else {
      cell += c;
      i++;
    }
  }
  if (cell !== '' || row.length) endRow();
  return { rows, tooManyRows: rows.length > maxRows };
}

/** The first cell holding a NUL character, numbered from 1 as a spreadsheet shows it (the header is row 1). */
export function findNulByte(rows: string[][]): { row: number; column: number } | null {
  for (const [r, cells] of rows.entries()) {
    const c = cells.findIndex((cell) => cell.includes('\0'));
    if (c >= 0) return { row: r + 1, column: c + 1 };
  }
  return null;
}

/** Whether the text holds more than `max` commas (quoted ones included), told before parsing makes a string per cell. */
export function tooManyDelimiters(text: string, max: number): boolean {
  let count = 0;
  for (let i = text.indexOf(','); i !== -1; i = text.indexOf(',', i + 1)) if (++count > max) return true;
  return false;
}
