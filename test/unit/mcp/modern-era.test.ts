import { describe, expect, it } from 'vitest';
import { cacheHints, claimsModern, decodeHeaderValue, envelopeError, versionError } from '../../../src/transports/mcp/modern-era.js';
import { modernHeaders } from '../../../src/transports/mcp/stdio-relay.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

describe('the modern era envelope', () => {
  it('is claimed by a _meta naming a protocol version, and by nothing else', () => {
    expect(claimsModern({ _meta: META })).toBe(true);
    expect(claimsModern({ _meta: { 'io.modelcontextprotocol/protocolVersion': 7 } })).toBe(true);
    expect(claimsModern({ _meta: { progressToken: 1 } })).toBe(false);
    expect(claimsModern({ name: 'x' })).toBe(false);
    expect(claimsModern(undefined)).toBe(false);
  });

  it('is refused with -32602 when a required field is missing or malformed', () => {
    expect(envelopeError({ _meta: META })).toBeUndefined();
    expect(envelopeError({})?.code).toBe(-32602);
    expect(envelopeError({ _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } })?.code).toBe(-32602);
    expect(envelopeError({ _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } })?.code).toBe(-32602);
    expect(envelopeError({ _meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': [] } })?.code).toBe(-32602);
    expect(envelopeError({ _meta: { ...META, 'io.modelcontextprotocol/clientInfo': { name: 'x' } } })?.code).toBe(-32602);
    expect(envelopeError({ _meta: { ...META, 'io.modelcontextprotocol/logLevel': 'loud' } })?.code).toBe(-32602);
  });

  it('names the supported versions and echoes the requested one for a version not spoken', () => {
    expect(versionError('2026-07-28')).toBeUndefined();
    expect(versionError('2025-11-25')).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'], requested: '2025-11-25' } });
  });

  it('gives cache hints to the cacheable results only, private for a narrowed tool list', () => {
    expect(cacheHints('tools/list', false)).toEqual({ ttlMs: 300_000, cacheScope: 'public' });
    expect(cacheHints('tools/list', true)?.cacheScope).toBe('private');
    expect(cacheHints('resources/read', true)).toEqual({ ttlMs: 0, cacheScope: 'public' });
    expect(cacheHints('tools/call', false)).toBeUndefined();
    expect(cacheHints('prompts/get', false)).toBeUndefined();
  });
});

describe('header values', () => {
  it('decode the Base64 sentinel and leave other values literal', () => {
    expect(decodeHeaderValue('core_constants')).toBe('core_constants');
    expect(decodeHeaderValue(`=?base64?${Buffer.from('Hello, 世界').toString('base64')}?=`)).toBe('Hello, 世界');
    expect(decodeHeaderValue('=?base64?not base64!?=')).toBeUndefined();
  });

  it('are made by the relay from the message, Base64-wrapped when not plain ASCII', () => {
    expect(modernHeaders({ method: 'tools/call', params: { name: 'core_constants', _meta: META } })).toEqual({
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'core_constants',
    });
    const uri = 'core://skills/ü';
    const headers = modernHeaders({ method: 'resources/read', params: { uri, _meta: META } });
    expect(decodeHeaderValue(headers['Mcp-Name']!)).toBe(uri);
    expect(headers['Mcp-Name']).not.toBe(uri);
    expect(modernHeaders({ method: 'tools/list', params: { _meta: META } })).toEqual({ 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' });
  });
});
