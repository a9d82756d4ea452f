import { describe, expect, it } from 'vitest';
import { redirectTarget } from '../../../src/domain/sessions/redirect-target.js';
import { CoreError } from '../../../src/errors.js';

const BASE = 'https://core.example.org';

function refused(uri: string, allowed: string[] = []): boolean {
  try {
    redirectTarget(uri, BASE, allowed);
    return false;
  } catch (err) {
    return err instanceof CoreError && err.code === 'VALIDATION_FAILED';
  }
}

describe('SSO redirect targets', () => {
  it('keeps paths on this node and URLs on its origin', () => {
    expect(redirectTarget('/explorer/', BASE, [])).toBe('/explorer/');
    expect(redirectTarget('/a?b=c#d', BASE, [])).toBe('/a?b=c#d');
    expect(redirectTarget('https://core.example.org/explorer/', BASE, [])).toBe('https://core.example.org/explorer/');
    expect(redirectTarget('https://app.example.org/x', BASE, ['https://app.example.org'])).toBe('https://app.example.org/x');
  });

  it('refuses every way of naming another host', () => {
    for (const uri of [
      'https://evil.example/',
      '//evil.example/',
      '/\\evil.example',
      '/\tevil',
      'https://core.example.org@evil.example/',
      'https://core.example.org.evil.example/',
      'http://core.example.org/',
      'https://core.example.org:8443/',
      'javascript:alert(1)',
      'data:text/html,hi',
      'explorer/',
      '',
    ]) {
      expect(refused(uri), uri).toBe(true);
    }
    expect(refused('https://app.example.org/x')).toBe(true);
  });
});
