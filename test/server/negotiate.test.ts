/** `Accept` of the split actions, read as DECISIONS.md says: a list with q-values, the best-ranked offered type wins. */
import { describe, expect, it } from 'vitest';
import { negotiatePackaging } from '../../src/server/negotiate.js';

describe('negotiatePackaging', () => {
  it('takes the best-ranked of the three offered types; none means ZIP', () => {
    expect(negotiatePackaging(null)).toBe('zip');
    expect(negotiatePackaging('application/json')).toBe('json');
    expect(negotiatePackaging('application/zip;q=0.5, multipart/mixed;q=0.9')).toBe('multipart');
    expect(negotiatePackaging('application/zip; q=0.5, application/json ; q=0.8')).toBe('json');
    expect(negotiatePackaging('text/html, application/json;q=0.1')).toBe('json');
  });

  it('refuses what names none of them, and a weight of 0', () => {
    expect(negotiatePackaging('*/*')).toBeUndefined();
    expect(negotiatePackaging('application/pdf')).toBeUndefined();
    expect(negotiatePackaging('application/zip;q=0')).toBeUndefined();
    expect(negotiatePackaging('application/zip;q=0.000')).toBeUndefined();
  });

  it('reads every malformed weight one way: that range is not accepted', () => {
    for (const weight of ['high', '1.5', '2', '', '0.5.1', '-1', '1.001', '0.1234', '.5']) {
      expect(negotiatePackaging(`application/zip;q=${weight}`), `q=${weight}`).toBeUndefined();
      expect(negotiatePackaging(`application/zip;q=${weight}, application/json;q=0.2`), `q=${weight} beside json`).toBe('json');
    }
    expect(negotiatePackaging('application/zip;q=1.000')).toBe('zip');
    expect(negotiatePackaging('application/zip;q=0.001')).toBe('zip');
  });

  it('keeps the other parameters out of the weight', () => {
    expect(negotiatePackaging('multipart/mixed;boundary=x;q=0.7, application/zip;q=0.6')).toBe('multipart');
  });
});
