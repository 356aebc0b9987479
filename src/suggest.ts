// "Did you mean …?" for misspelt field names and languages.
import { distance } from 'fastest-levenshtein';

/** The candidate nearest to `word`, if it is near enough to be a likely typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = candidate.toLowerCase() === lower ? 0 : distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  // A word that shares no letter with the candidate is no typo of it (`<<`, YAML's merge key, is not `id`).
  return bestDistance <= Math.max(2, Math.floor(word.length / 3)) && bestDistance < word.length ? best : undefined;
}
