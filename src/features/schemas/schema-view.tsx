import { useState } from 'react';
import { SpecBadge } from '../../components/spec-badge';
import { PROPERTY_TYPE_MEANING, type MetadataSchema } from '../../contract/metadata';
import type { ApiResponse } from '../../lib/api-client';
import { ResponseMetaView, ResponseSummary } from '../../components/response-meta';
import { Tabs } from '../../components/tabs';
import { TableScroll } from '../../components/table-scroll';
import { CopyButton } from '../../components/copy-button';

/** A group's keys, the raw answer and the response details. */
function SchemaTabs({ response, group }: { response: ApiResponse<MetadataSchema>; group: string }) {
  const [tab, setTab] = useState('keys');
  const keys = response.data.metadataKeys ?? [];
  return (
    <Tabs
      label={`Schema of ${group}`}
      selected={tab}
      onSelect={setTab}
      tabs={[
        {
          id: 'keys',
          label: `Keys (${keys.length})`,
          content: keys.length ? (
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
                  {keys.map((k) => (
                    <tr key={k.name}>
                      <td>
                        <code>{k.name}</code>
                      </td>
                      <td>{k.propertyType}</td>
                      <td>{PROPERTY_TYPE_MEANING[k.propertyType] ?? 'a type this console does not know'}</td>
                      <td>{k.skipIndexing ? 'stored only (skipIndexing)' : 'searchable'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
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
              <pre className="raw">{JSON.stringify(response.data, null, 2)}</pre>
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
