/** Offers `text` (or a Blob as it is) as a file download named `name`, without a server round trip. */
export function download(name: string, text: string | Blob, type = 'application/json'): void {
  const url = URL.createObjectURL(typeof text === 'string' ? new Blob([text], { type }) : text);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  // The click has started the download by the next task; the URL is then let go.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * A file name that says what it holds and when: `run-echo-assistant-2026-11-25-1312-<id>.json`
 * (the agent id kept to letters, digits, dots, dashes and underscores).
 */
export function exportFileName(kind: string, agentId: string, at: number, id: string): string {
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  const when = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}-${pad(d.getHours())}${pad(d.getMinutes())}`;
  const safe = (s: string) => s.replace(/[^\w.-]+/g, '_').slice(0, 60);
  return `${kind}-${safe(agentId)}-${when}-${safe(id)}.json`;
}
