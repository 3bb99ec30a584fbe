/** Hex pairs per group: eight groups for a SHA-256, two groups a line. */
const PAIRS_PER_GROUP = 4;

/** "AB:CD:…" as groups of four pairs, for a person to compare group by group. */
export function fingerprintGroups(fingerprint: string): string[] {
  const pairs = fingerprint.trim().toUpperCase().split(':');
  const groups: string[] = [];
  for (let i = 0; i < pairs.length; i += PAIRS_PER_GROUP) groups.push(pairs.slice(i, i + PAIRS_PER_GROUP).join(':'));
  return groups;
}

/**
 * A certificate's fingerprint laid out the same on every screen (the share page of one laptop,
 * the follow panel of the other, a phone): two groups of four pairs a line, whatever the width,
 * so two people compare line by line instead of chasing where each screen wrapped.
 */
export function Fingerprint({ value, testId }: { value: string; testId?: string }) {
  return (
    <code className="fingerprint-groups" data-testid={testId}>
      {fingerprintGroups(value).map((group, i) => (
        <span key={i} className="fingerprint-group">
          {/* Keeps the text whole for copying and reading aloud; the grid shows the groups. */}
          {i > 0 && <span className="fingerprint-sep">:</span>}
          {group}
        </span>
      ))}
    </code>
  );
}
