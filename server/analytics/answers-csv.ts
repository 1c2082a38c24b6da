// The answers as CSV (`Accept: text/csv` on the responses endpoint): every answer of the window, streamed a page at a time.
import type { FlowCatalog } from '../flows/catalog.js';
import type { Queryable } from '../storage/store.js';
import type { AnalyticsWindow } from './window.js';
import { answersPage, type Cursor } from './answers-report.js';
import { flowMeta } from './report-shared.js';

/** The CSV columns, in order. */
export const CSV_COLUMNS = [
  'created_at',
  'user_id',
  'step_id',
  'field',
  'value',
  'url',
  'version',
  'response_id',
  'locale',
] as const;

/** One CSV cell (RFC 4180). Text that a spreadsheet would run as a formula (=, +, -, @) gets a leading apostrophe. */
export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Every answer of the window as CSV lines (header first), read a thousand at a time. */
export async function* answersCsv(
  db: Queryable,
  catalog: FlowCatalog,
  slug: string,
  window: AnalyticsWindow,
  stepId?: string,
): AsyncGenerator<string> {
  await flowMeta(db, catalog, slug, window.version);
  yield `${CSV_COLUMNS.join(',')}\r\n`;
  let cursor: Cursor | undefined;
  // Bounded: each page moves the cursor past at least one answer, and the window holds finitely many.
  for (;;) {
    const { rows, next } = await answersPage(db, catalog, slug, window, { stepId, limit: 1000, cursor, checked: true });
    if (rows.length > 0) {
      yield (
        rows
          .map((row) =>
            [
              row.createdAt,
              row.userId,
              row.stepId,
              row.field,
              row.value,
              row.url,
              row.version,
              row.responseId,
              row.locale,
            ]
              .map(csvCell)
              .join(','),
          )
          .join('\r\n') + '\r\n'
      );
    }
    if (!next) return;
    cursor = next;
  }
}
