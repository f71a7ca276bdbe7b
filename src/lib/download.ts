/** Offers `text` as a file download named `name`, without a server round trip. */
export function download(name: string, text: string, type = 'application/json'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  // The click has started the download by the next task; the URL is then let go.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
