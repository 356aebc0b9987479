import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Polls wait on real servers and a real browser, on two busy cores: a page that loads eight shards of the
    // search index took 1.3–1.5 s to list its filters, past the default second. A passing poll waits no longer.
    expect: { poll: { timeout: 10_000 } },
  },
});
