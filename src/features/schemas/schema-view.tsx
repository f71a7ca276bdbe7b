import { useId, useMemo, useState } from 'react';
import { formatCount } from '../../lib/format';
import { SpecBadge } from '../../components/spec-badge';
import { searchMeaningOf, type MetadataSchema } from '../../contract/metadata';
import type { ApiResponse } from '../../lib/api-client';
import { ResponseMetaView, ResponseSummary } from '../../components/response-meta';
import { Tabs } from '../../components/tabs';
import { TableScroll } from '../../components/table-scroll';
import { CopyButton } from '../../components/copy-button';

/**
 * Most keys listed at once. The API allows 20 keys a group, but an instance may answer
 * thousands: past this, the list says how many more there are, and a filter finds them.
 */
export const KEYS_SHOWN = 200;

/** Longest raw body shown as it came (past it, its beginning). */
const RAW_SHOWN_CHARS = 100_000;

/** A group's keys, the raw answer and the response details. */
function SchemaTabs({ response, group }: { response: ApiResponse<MetadataSchema>; group: string }) {
  const [tab, setTab] = useState('keys');
  const [filter, setFilter] = useState('');
  const filterId = useId();
  const listed = response.data.metadataKeys;
  const allKeys = useMemo(() => (Array.isArray(listed) ? listed : []), [listed]);
  const many = allKeys.length > KEYS_SHOWN;
  const matching = useMemo(() => {
    const q = filter.trim().toLowerCase();
    return q ? allKeys.filter((k) => String(k?.name).toLowerCase().includes(q)) : allKeys;
  }, [allKeys, filter]);
  const keys = matching.slice(0, KEYS_SHOWN);
  const rawLarge = response.rawBody.length > RAW_SHOWN_CHARS;
  return (
    <Tabs
      label={`Schema of ${group}`}
      selected={tab}
      onSelect={setTab}
      tabs={[
        {
          id: 'keys',
          label: `Keys (${allKeys.length})`,
          content: allKeys.length ? (
            <>
            {many && (
              <div className="field">
                <label htmlFor={filterId}>Filter keys by name</label>
                <input id={filterId} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} aria-describedby={`${filterId}-hint`} />
                <p id={`${filterId}-hint`} className="hint" role="note">
                  ✂ {formatCount(matching.length)} {filter.trim() ? `of ${formatCount(allKeys.length)} keys match` : 'keys'}; the first {formatCount(keys.length)} are listed. The Raw JSON tab has them all.
                </p>
              </div>
            )}
            <TableScroll label={`Keys of group ${group}`}>
              <table className="keys">
                <caption className="visually-hidden">Keys of group {group}</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Type</th>
                    <th scope="col">What it means for search</th>
                    <th scope="col">Search</th>
                  </tr>
                </thead>
                <tbody>
                  {keys.map((k, i) => (
                    <tr key={`${i}:${k.name}`}>
                      <td>
                        <code>{k.name}</code>
                      </td>
                      <td>{k.propertyType}</td>
                      <td>{searchMeaningOf(k)}</td>
                      <td>{k.skipIndexing ? 'stored only (skipIndexing)' : 'searchable'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
            </>
          ) : (
            <p>This schema has no keys.</p>
          ),
        },
        {
          id: 'raw',
          label: 'Raw JSON',
          content: (
            <>
              <CopyButton text={response.rawBody} label="Copy response body" />
              {rawLarge && (
                <p className="hint" role="note">
                  ✂ Shown are the first {formatCount(RAW_SHOWN_CHARS)} of the body’s {formatCount(response.rawBody.length)} characters, as received; Copy has it whole.
                </p>
              )}
              <pre className="raw">{rawLarge ? response.rawBody.slice(0, RAW_SHOWN_CHARS) : JSON.stringify(response.data, null, 2)}</pre>
            </>
          ),
        },
        { id: 'response', label: 'Response', content: <ResponseMetaView meta={response} /> },
      ]}
    />
  );
}

/** The schema answer: its status, time and size, whether it matches the public schema, then its keys, raw JSON and details. */
export function SchemaView({ response, group }: { response: ApiResponse<MetadataSchema>; group: string }) {
  return (
    <>
      <ResponseSummary meta={response} />
      <SpecBadge answer={response} />
      <SchemaTabs response={response} group={group} />
    </>
  );
}
