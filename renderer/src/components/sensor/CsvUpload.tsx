import { useMemo, useState } from 'react';
import { API, upload } from '../../api/client.ts';
import type { Sensor } from '../../api/types.ts';
import { unitWithSign } from '../../lib/attributes.ts';
import { checkDataRows, detectFormat, normalizedCsv, parseCsv, type CsvFormat, type CsvRow } from '../../lib/csv.ts';
import { DataTable } from '../DataTable.tsx';
import { Field } from '../Field.tsx';
import { ErrorNotice, OkNotice, Progress } from '../Status.tsx';
import * as wire from '../../api/contracts.ts';

const PREVIEW_ROWS = 10;

/** Upload a CSV of (event start, value) rows, with a preview and per-row errors before sending. */
export function CsvUpload({ sensor, onUploaded }: { sensor: Sensor; onUploaded: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [parsed, setParsed] = useState<string[][] | null>(null);
  const [format, setFormat] = useState<CsvFormat>({ decimalComma: false, dateOrder: 'iso' });
  const checked = useMemo(() => (parsed ? checkDataRows(parsed, format) : null), [parsed, format]);
  // Files in another format are sent as the rows were checked: ISO dates, decimal points.
  const rewritten = format.decimalComma || format.dateOrder !== 'iso';
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);

  async function choose(chosen: File | null) {
    setFile(chosen);
    setDone(null);
    setError(null);
    const rows = chosen ? parseCsv(await chosen.text()) : null;
    setParsed(rows);
    if (rows) setFormat(detectFormat(rows));
  }

  async function send() {
    if (!file) return;
    const form = new FormData();
    const sent = rewritten && checked ? new File([normalizedCsv(checked.rows)], file.name, { type: 'text/csv' }) : file;
    form.append('uploaded-files', sent, file.name);
    setProgress(0);
    setError(null);
    try {
      const answer = await upload(`${API}/sensors/${sensor.id}/data/upload`, form, setProgress, wire.processedAnswer);
      setDone(answer?.message ?? 'Uploaded.');
      setFile(null);
      setParsed(null);
      onUploaded();
    } catch (err) {
      setError(err);
    } finally {
      setProgress(null);
    }
  }

  const bad = checked?.rows.filter((r) => r.error) ?? [];
  return (
    <div className="csv-upload">
      <Field
        label="CSV file"
        hint={`Columns: event start (times without offset are read in ${sensor.timezone}), value in ${unitWithSign(sensor)}, and optionally the time the value was known.`}
      >
        <input
          type="file"
          accept=".csv,text/csv"
          onChange={(e) => {
            void choose(e.target.files?.[0] ?? null);
            // Emptied, so that choosing the same file again (after fixing it) is a change too.
            e.target.value = '';
          }}
        />
      </Field>
      {checked && (
        <>
          <CsvFormatFields format={format} onChange={setFormat} />
          {rewritten && <p className="muted">The rows are sent as shown below: dates in ISO 8601, decimal points.</p>}
          <CsvPreview rows={checked.rows} header={checked.header} bad={bad} unit={unitWithSign(sensor)} />
          <div className="actions">
            <button
              type="button"
              className="primary"
              disabled={bad.length > 0 || progress !== null || checked.rows.length === 0}
              onClick={send}
            >
              Upload {checked.rows.length} row(s)
            </button>
          </div>
        </>
      )}
      {progress !== null && (
        <Progress
          label={progress < 1 ? `Uploading ${Math.round(progress * 100)}%` : 'Storing the data'}
          fraction={progress < 1 ? progress : undefined}
        />
      )}
      <OkNotice>{done}</OkNotice>
      <ErrorNotice error={error} />
    </div>
  );
}

/** How the file writes its dates and decimals, as detected and as the user corrects it. */
function CsvFormatFields({ format, onChange }: { format: CsvFormat; onChange: (format: CsvFormat) => void }) {
  return (
    <div className="grid-form csv-format">
      <Field label="Dates written">
        <select value={format.dateOrder} onChange={(e) => onChange({ ...format, dateOrder: e.target.value as CsvFormat['dateOrder'] })}>
          <option value="iso">year first (2026-12-31 13:00)</option>
          <option value="day-first">day first (31.12.2026 13:00)</option>
          <option value="month-first">month first (12/31/2026 13:00)</option>
        </select>
      </Field>
      <Field label="Decimal separator">
        <select
          value={format.decimalComma ? 'comma' : 'point'}
          onChange={(e) => onChange({ ...format, decimalComma: e.target.value === 'comma' })}
        >
          <option value="point">point (12.5)</option>
          <option value="comma">comma (12,5)</option>
        </select>
      </Field>
    </div>
  );
}

/** The first rows as they will be sent, and the rows with problems further down, each with its problem. */
function CsvPreview({ rows, header, bad, unit }: { rows: CsvRow[]; header: string[] | null; bad: CsvRow[]; unit: string }) {
  const shown = [...rows.slice(0, PREVIEW_ROWS), ...bad.filter((r) => r.line > PREVIEW_ROWS + 1).slice(0, 20)];
  return (
    <>
      <p role="status">
        {rows.length} data row(s){header ? `, header: ${header.join(', ')}` : ''}.{' '}
        {bad.length ? (
          <strong className="field-error">{bad.length} row(s) have problems; fix them before uploading.</strong>
        ) : (
          'No problems found.'
        )}
      </p>
      <DataTable
        label="Upload preview"
        columns={['Line', 'Event start', `Value (${unit})`, 'Problem']}
        rows={shown}
        row={(r) => (
          <tr key={r.line} className={r.error ? 'invalid' : ''}>
            <td>{r.line}</td>
            <td>{r.start}</td>
            <td>{r.value}</td>
            <td className="field-error">{r.error ?? ''}</td>
          </tr>
        )}
      />
    </>
  );
}
