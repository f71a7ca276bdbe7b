import { Fragment } from 'react';

/** Text as written in API descriptions: `backticked` spans become code, the rest stays text. */
export function InlineCode({ text }: { text: string }) {
  // Split on backtick pairs: odd parts were inside them. An unpaired backtick stays as typed.
  const parts = text.split(/`([^`]+)`/);
  return (
    <>
      {parts.map((part, i) => (i % 2 ? <code key={i}>{part}</code> : <Fragment key={i}>{part}</Fragment>))}
    </>
  );
}
