import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { MetadataSchema } from '../../contract/metadata';
import { nameProblem } from '../../contract/names';
import { GLOBAL_SCOPE, scopesCoverGroup, scopesThatCover } from '../../contract/scopes';
import { ApiError, notConnected, type ResponseMeta } from '../../lib/api-client';
import { connectionKey, useConnection } from '../../lib/connection';
import { CodeSnippets } from '../../components/code-snippets';
import { RelativeTime } from '../../components/relative-time';
import { ResponseSummary } from '../../components/response-meta';
import { useDeleteSchema, useSchema } from './api/schema';
import { DocumentValues } from './document-values';
import { GroupForm } from './group-form';
import { useRecentGroups } from './recent-groups';
import { SchemaEditor } from './schema-editor';
import { SchemaError } from './schema-error';
import { SchemaView } from './schema-view';
import { KnownGroups } from './known-groups';
import { PageTitle } from '../../components/page-title';
import { escapeCancels } from '../../lib/use-page-escape';

export function SchemasPage() {
  const { group = '' } = useParams();
  const navigate = useNavigate();
  const [recent, rememberGroup] = useRecentGroups();
  const valid = group !== '' && nameProblem(group, 'group name') === null;
  // A group reached by its address (a link, a bookmark) is as recent as one typed in.
  useEffect(() => {
    if (valid) rememberGroup(group);
  }, [group, valid, rememberGroup]);
  return (
    <section aria-labelledby="schemas-heading">
      <PageTitle title={valid ? `Schemas · ${group}` : 'Schemas'} />
      <h1 id="schemas-heading">Schemas</h1>
      <GroupForm
        initial={group}
        recent={recent}
        onOpen={(g) => {
          rememberGroup(g);
          navigate(`/schemas/${encodeURIComponent(g)}`);
        }}
      />
      {group !== '' && !valid && <p className="error" role="alert">“{group}” is not a valid group name: {nameProblem(group, 'group name')}</p>}
      {valid && <GroupSchema key={group.toLowerCase()} group={group} />}
      {!valid && <KnownGroups />}
    </section>
  );
}

function GroupSchema({ group }: { group: string }) {
  const connection = useConnection();
  const covered = connection.scopes.length === 0 || scopesCoverGroup(connection.scopes, group);
  // Sending anyway is remembered for this profile and group only.
  const [sendAnyway, setSendAnyway] = useState<string | null>(null);
  const allowed = covered || sendAnyway === `${connection.profileId}:${group.toLowerCase()}`;
  const query = useSchema(connection, group, allowed);
  const [editing, setEditing] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const refocusDelete = useRef(false);
  const refocusEdit = useRef(false);
  // Back from the editor without saving (Cancel): focus returns to what opened it, Edit schema
  // or Create a schema. The wish lasts one commit: it never waits for a later opener to mount.
  const refocusOpener = (el: HTMLButtonElement | null) => {
    if (el && refocusEdit.current) {
      refocusEdit.current = false;
      el.focus();
    }
  };
  useEffect(() => {
    refocusEdit.current = false;
  });
  const cancelDelete = () => {
    refocusDelete.current = true;
    setConfirmDelete(false);
  };
  /** The last change this page made, said once it succeeded, with the answer that said so. */
  const [notice, setNotice] = useState<{ text: string; answer: ResponseMeta } | null>(null);
  const noticeBox = useRef<HTMLDivElement>(null);
  // The control that was used (Save, Delete) goes away with its view: focus goes to what it did.
  useEffect(() => {
    if (notice) noticeBox.current?.focus();
  }, [notice]);
  const del = useDeleteSchema(connection, group);
  const { recordOutcome } = connection;

  useEffect(() => {
    if (query.isSuccess) recordOutcome(group, 'ok');
    else if (query.error instanceof ApiError && query.error.status === 401) recordOutcome(group, 'refused');
  }, [query.isSuccess, query.error, group, recordOutcome]);

  // Another server (mode and target) is another schema: the editor of one is never kept for
  // another. Another token for the same server keeps the edits: pasting a token lost them,
  // and the save then says what that token may do (a 401 names the scope).
  const identity = connectionKey(connection).join(' ');
  const server = `${connection.mode} ${connection.target}`;
  const [editingFor, setEditingFor] = useState({ identity, server });
  if (editingFor.identity !== identity) {
    setEditingFor({ identity, server });
    if (editingFor.server !== server) setEditing(false);
    setConfirmDelete(false);
    setNotice(null);
  }
  // The schema the edits started from: its diff and its Save stay, when another token cannot read it.
  const [editedFrom, setEditedFrom] = useState<MetadataSchema | undefined>(undefined);
  const startEditing = () => {
    setNotice(null);
    setEditedFrom(query.isSuccess ? query.data.data : undefined);
    setEditing(true);
  };

  const [one] = scopesThatCover(group);
  return (
    <div className="group-schema">
      <h2>
        Group <code>{group}</code>
      </h2>
      {!covered && (
        <div className="warning" role="alert">
          <p>
            A token for <code>{connection.scopes.join(' ')}</code> will be refused with 401 for group <code>{group}</code>; it needs{' '}
            <code>{one}</code> or <code>{GLOBAL_SCOPE}</code>.
          </p>
          {!allowed && (
            <button type="button" onClick={() => setSendAnyway(`${connection.profileId}:${group.toLowerCase()}`)}>
              Read the schema anyway (GET)
            </button>
          )}
        </div>
      )}
      {!connection.token && (
        <p className="warning">
          This profile has no token: the service will answer 401. Paste one in the connection panel, or <Link to="/connection">start here</Link> for demo
          tokens and the scopes each page needs.
        </p>
      )}
      <div role="status">
        {notice && (
          <div className="notice" tabIndex={-1} ref={noticeBox}>
            <p className="notice-text">{notice.text}</p>
            <ResponseSummary meta={notice.answer} />
          </div>
        )}
      </div>
      {allowed && (
        <div className="toolbar">
          <button type="button" onClick={() => void query.refetch()} disabled={query.isFetching}>
            {query.isFetching ? 'Fetching…' : 'Refetch'}
          </button>
          {query.dataUpdatedAt > 0 && !query.isError && (
            <span className="muted">
              Fetched <RelativeTime at={query.dataUpdatedAt} />
              {query.isStale ? ' (stale)' : ''}
            </span>
          )}
        </div>
      )}
      <div aria-live="polite">{query.isLoading && <p role="status">Loading the schema of {group}…</p>}</div>
      {connection.problem && !editing && (
        <SchemaError
          error={notConnected(connection.problem)}
          group={group}
          statedScopes={connection.scopes}
          tokenSent={connection.token !== undefined}
          onCreate={startEditing}
          onRetry={() => undefined}
        />
      )}
      {query.isError && !editing && (
        <SchemaError
          error={query.error instanceof ApiError ? query.error : new ApiError('http', 0, 'Error', String(query.error), undefined, undefined)}
          group={group}
          statedScopes={connection.scopes}
          tokenSent={connection.token !== undefined}
          onCreate={startEditing}
          onRetry={() => void query.refetch()}
          createRef={refocusOpener}
        />
      )}
      {query.isSuccess && !editing && (
        <>
          <SchemaView response={query.data} group={group} />
          <div className="toolbar">
            <button ref={refocusOpener} type="button" onClick={startEditing}>
              Edit schema
            </button>
            {!confirmDelete ? (
              <button
                ref={(el) => {
                  // Back from the question (Cancel, Escape): focus returns to where it was asked from.
                  if (el && refocusDelete.current) {
                    refocusDelete.current = false;
                    el.focus();
                  }
                }}
                type="button"
                className="danger"
                onClick={() => setConfirmDelete(true)}
              >
                Delete schema
              </button>
            ) : (
              <span
                className="confirm"
                role="group"
                aria-label="Confirm deletion"
                onKeyDown={(e) => escapeCancels(e, cancelDelete)}
              >
                <span>Delete the schema of {group}? Values already on documents are kept.</span>
                <button
                  type="button"
                  className="danger"
                  onClick={() =>
                    del.mutate(undefined, {
                      onSuccess: (answer) => {
                        setConfirmDelete(false);
                        setNotice({ text: `Schema of ${group} deleted.`, answer });
                      },
                    })
                  }
                >
                  Delete
                </button>
                {/* Focus starts on Cancel: a deletion cannot be undone. */}
                <button type="button" onClick={cancelDelete} autoFocus>
                  Cancel
                </button>
              </span>
            )}
          </div>
          {del.isError && (
            <div role="alert">
              <p className="error">Could not delete: {del.error instanceof ApiError ? del.error.detail : String(del.error)}</p>
              {del.error instanceof ApiError && del.error.meta && <ResponseSummary meta={del.error.meta} />}
            </div>
          )}
        </>
      )}
      {editing && (
        <SchemaEditor
          connection={connection}
          group={group}
          stored={query.isSuccess ? query.data.data : editedFrom}
          onDone={(answer) => {
            refocusEdit.current = answer === null;
            setEditing(false);
            if (answer) setNotice({ text: `Schema of ${group} ${query.isSuccess || editedFrom ? 'saved' : 'created'}.`, answer });
          }}
        />
      )}
      {allowed && !editing && (
        // While deletion is being confirmed, the code is the DELETE about to be sent.
        <CodeSnippets call={confirmDelete && query.isSuccess ? { op: 'deleteSchema', group } : { op: 'getSchema', group }} connection={connection} />
      )}
      {query.isSuccess && !editing && <DocumentValues connection={connection} group={group} schema={query.data.data} />}
    </div>
  );
}
