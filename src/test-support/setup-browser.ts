import { configure } from '@testing-library/dom';

// The first test of a file loads the lazy pages through Vite's transform; on a busy two-core
// CI machine that can take longer than Testing Library’s default one second, and the suite must
// pass while another process keeps both cores busy.
configure({ asyncUtilTimeout: 15_000 });
