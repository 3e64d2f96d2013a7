// The upstream OpenID Connect provider of the team-mode tests: oauth2-mock-server on loopback,
// with one addition. Its /authorize redirects at once (no login page), so who signs in is told
// by `login_hint` at authorize:
//   login_hint=alice@example.com             -> sub "sub-alice@example.com", that email, verified
//   login_hint=unverified:bob@example.com    -> the same with email_verified false
//   no login_hint                            -> oauth2-mock-server's own "johndoe", no email
// The identity follows the code to the token endpoint and then every refresh token issued for it.
//
// Usage: node mock_oidc_provider.mjs [port]   (port 0 or none: any free port)
// Prints one JSON line {"issuer": "http://127.0.0.1:<port>"} on stdout once it listens, and runs
// until killed (SIGTERM/SIGINT stop it cleanly).
import { randomUUID } from 'node:crypto';
import { OAuth2Server } from 'oauth2-mock-server';

const port = Number.parseInt(process.argv[2] ?? '0', 10);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`mock_oidc_provider: the port must be 0..65535, not ${process.argv[2]}`);
  process.exit(2);
}

const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');

function identityFromHint(hint) {
  if (typeof hint !== 'string' || hint === '') return undefined;
  const unverified = hint.startsWith('unverified:');
  const email = unverified ? hint.slice('unverified:'.length) : hint;
  return { sub: `sub-${email}`, email, email_verified: !unverified };
}

// code -> identity (set at authorize), refresh token -> identity (set when one is issued)
const identityByCode = new Map();
const identityByRefreshToken = new Map();

function identityOfTokenRequest(req) {
  const body = req.body ?? {};
  if (body.grant_type === 'authorization_code') return identityByCode.get(body.code);
  if (body.grant_type === 'refresh_token') return identityByRefreshToken.get(body.refresh_token);
  return undefined;
}

server.service.on('beforeAuthorizeRedirect', (authorizeRedirectUri, req) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  const identity = identityFromHint(url.searchParams.get('login_hint'));
  const code = authorizeRedirectUri.url.searchParams.get('code');
  if (identity && code) identityByCode.set(code, identity);
});

server.service.on('beforeTokenSigning', (token, req) => {
  // Two tokens signed in the same second would otherwise be identical (RS256 is deterministic),
  // and a test could not tell a refreshed token from the old one.
  token.payload.jti = randomUUID();
  const identity = identityOfTokenRequest(req);
  if (identity) Object.assign(token.payload, identity);
});

server.service.on('beforeResponse', (response, req) => {
  const identity = identityOfTokenRequest(req);
  const body = req.body ?? {};
  if (body.grant_type === 'authorization_code') identityByCode.delete(body.code);
  if (identity && response.body.refresh_token) {
    identityByRefreshToken.set(response.body.refresh_token, identity);
  }
});

await server.start(port, '127.0.0.1');
// It names itself http://localhost:<port>; name the address it listens on, so no client tries ::1.
server.issuer.url = `http://127.0.0.1:${server.address().port}`;
process.stdout.write(JSON.stringify({ issuer: server.issuer.url }) + '\n');

const stop = async () => {
  await server.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
