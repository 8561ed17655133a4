import { useState } from 'react';
import { API, upload } from '../../api/client.ts';
import type { Sensor } from '../../api/types.ts';
import { checkDataRows, parseCsv, type CsvRow } from '../../lib/csv.ts';
import { Field } from '../Field.tsx';
import { ErrorNotice, Progress } from '../Status.tsx';
import * as wire from '../../api/contracts.ts';

const PREVIEW_ROWS = 10;

/** Upload a CSV of (event start, value) rows, with a preview and per-row errors before sending. */
export function CsvUpload({ sensor, onUploaded }: { sensor: Sensor; onUploaded: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [checked, setChecked] = useState<{ header: string[] | null; rows: CsvRow[] } | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);

  async function choose(chosen: File | null) {
    setFile(chosen);
    setDone(null);
    setError(null);
    setChecked(chosen ? checkDataRows(parseCsv(await chosen.text())) : null);
  }

  async function send() {
    if (!file) return;
    const form = new FormData();
    form.append('uploaded-files', file, file.name);
    setProgress(0);
    setError(null);
    try {
      const answer = await upload(`${API}/sensors/${sensor.id}/data/upload`, form, setProgress, wire.processedAnswer);
      setDone(answer?.message ?? 'Uploaded.');
      setFile(null);
      setChecked(null);
      onUploaded();
    } catch (err) {
      setError(err);
    } finally {
      setProgress(null);
    }
  }

  const bad = checked?.rows.filter((r) => r.error) ?? [];
  const shown = checked ? [...checked.rows.slice(0, PREVIEW_ROWS), ...bad.filter((r) => r.line > PREVIEW_ROWS + 1).slice(0, 20)] : [];
  return (
    <div className="csv-upload">
      <Field
        label="CSV file"
        hint={`Columns: event start (times without offset are read in ${sensor.timezone}), value in ${sensor.unit}, and optionally the time the value was known.`}
      >
        <input type="file" accept=".csv,text/csv" onChange={(e) => void choose(e.target.files?.[0] ?? null)} />
      </Field>
      {checked && (
        <>
          <p role="status">
            {checked.rows.length} data row(s){checked.header ? `, header: ${checked.header.join(', ')}` : ''}.{' '}
            {bad.length ? (
              <strong className="field-error">{bad.length} row(s) have problems; fix them before uploading.</strong>
            ) : (
              'No problems found.'
            )}
          </p>
          <div className="table-wrap">
            <table aria-label="Upload preview">
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Event start</th>
                  <th scope="col">Value</th>
                  <th scope="col">Problem</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((r) => (
                  <tr key={r.line} className={r.error ? 'invalid' : ''}>
                    <td>{r.line}</td>
                    <td>{r.start}</td>
                    <td>{r.value}</td>
                    <td className="field-error">{r.error ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
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
      {done && (
        <p className="notice ok" role="status">
          {done}
        </p>
      )}
      <ErrorNotice error={error} />
    </div>
  );
}
