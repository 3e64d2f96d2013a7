// An OAuthClientProvider (@modelcontextprotocol/sdk) for a test with no browser: it keeps the
// client registration, tokens, PKCE verifier and discovery state in memory, and where a real
// client opens a browser (redirectToAuthorization) it follows the redirect chain with fetch
// (redirect: "manual") until one points at its own redirect_uri, and keeps the `code`, `state`
// and `iss` that came back. Every hop is recorded in `authorization`, so a test can see where the
// chain went and where it stopped (e.g. the daemon's 403 page for a user outside the allowlist).
import { randomBytes } from "node:crypto";
import { interestingHeaders } from "./team_support.mjs";

const MAX_REDIRECTS = 10;

export class BrowserlessOAuthProvider {
  // signIn false: a test that brings its own --token wants to see the server's answer to it, so
  // a demand to authorize is recorded (authorization.required) but not followed.
  constructor({ redirectUrl, clientName, loginHint, accessToken, signIn = true, consent = "allow",
                fetch: logFetch }) {
    this._consent = consent;
    this._redirectUrl = redirectUrl;
    this._clientName = clientName;
    this._loginHint = loginHint;
    this._signIn = signIn;
    this._fetch = logFetch ?? fetch;
    this._tokens = accessToken ? { access_token: accessToken, token_type: "Bearer" } : undefined;
    this._clientInformation = undefined;
    this._codeVerifier = undefined;
    this._discoveryState = undefined;
    this._state = undefined;
    this.authorization = { required: false, redirects: [] };
  }

  get redirectUrl() {
    return this._redirectUrl;
  }

  // What the client registers with (RFC 7591): a public client (PKCE, no secret) that signs in
  // with the authorization code and may refresh.
  get clientMetadata() {
    return {
      client_name: this._clientName,
      redirect_uris: [this._redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state() {
    this._state = randomBytes(16).toString("hex");
    return this._state;
  }

  clientInformation() {
    return this._clientInformation;
  }

  saveClientInformation(information) {
    this._clientInformation = information;
    this.authorization.client_id = information.client_id;
  }

  tokens() {
    return this._tokens;
  }

  saveTokens(tokens) {
    this._tokens = tokens;
  }

  saveCodeVerifier(verifier) {
    this._codeVerifier = verifier;
    this.authorization.code_verifier = verifier; // printed so a test can replay the exchange
  }

  codeVerifier() {
    if (this._codeVerifier === undefined) throw new Error("no PKCE code verifier was saved");
    return this._codeVerifier;
  }

  saveDiscoveryState(state) {
    this._discoveryState = state;
  }

  discoveryState() {
    return this._discoveryState;
  }

  invalidateCredentials(scope) {
    (this.authorization.invalidated ??= []).push(scope);
    if (scope === "all" || scope === "client") this._clientInformation = undefined;
    if (scope === "all" || scope === "tokens") this._tokens = undefined;
    if (scope === "all" || scope === "verifier") this._codeVerifier = undefined;
    if (scope === "all" || scope === "discovery") this._discoveryState = undefined;
  }

  // What the SDK discovered: the protected-resource metadata (RFC 9728) and the authorization
  // server's metadata (RFC 8414), as the server published them.
  discovered() {
    const state = this._discoveryState;
    if (state === undefined) return undefined;
    return {
      authorization_server_url: state.authorizationServerUrl,
      resource_metadata: state.resourceMetadata,
      authorization_server_metadata: state.authorizationServerMetadata,
    };
  }

  async redirectToAuthorization(authorizationUrl) {
    this.authorization.required = true;
    if (this._loginHint !== undefined) authorizationUrl.searchParams.set("login_hint", this._loginHint);
    this.authorization.request = Object.fromEntries(authorizationUrl.searchParams);
    this.authorization.endpoint = authorizationUrl.origin + authorizationUrl.pathname;
    if (!this._signIn) return;
    await this._followToRedirectUri(authorizationUrl);
  }

  // The browser's part: GET each Location until one is our redirect_uri (whose query carries the
  // answer), or until a page that is not a redirect (an error page: its status and body are kept).
  // Like a browser it keeps each origin's cookies (the daemon binds a sign-in to the browser that
  // started it), and on the daemon's consent page it presses Allow (the user approving this
  // client; `consent: "deny"` presses Deny).
  async _followToRedirectUri(start) {
    const redirectUri = new URL(this._redirectUrl);
    const cookies = new Map(); // origin -> Map(name -> value)
    const cookieHeader = (url) => {
      const jar = cookies.get(url.origin);
      return jar ? [...jar].map(([name, value]) => `${name}=${value}`).join("; ") : undefined;
    };
    let next = start;
    let init = { redirect: "manual" };
    for (let hop = 0; hop < MAX_REDIRECTS; hop += 1) {
      const cookie = cookieHeader(next);
      const headers = { ...(init.headers ?? {}), ...(cookie ? { cookie } : {}) };
      const response = await this._fetch(next, { ...init, headers });
      for (const line of response.headers.getSetCookie?.() ?? []) {
        const [pair] = line.split(";");
        const eq = pair.indexOf("=");
        if (eq <= 0) continue;
        if (!cookies.has(next.origin)) cookies.set(next.origin, new Map());
        cookies.get(next.origin).set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      }
      const location = response.headers.get("location");
      const step = { url: next.origin + next.pathname, status: response.status };
      if (init.method === "POST") step.method = "POST";
      this.authorization.redirects.push(step);
      if (location === null || response.status < 300 || response.status > 399) {
        const body = await response.text();
        const form = response.status === 200 ? consentForm(body) : undefined;
        if (form !== undefined) {
          step.consent = this._consent;
          next = new URL(form.action, next);
          init = {
            redirect: "manual",
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ ...form.fields, decision: this._consent }).toString(),
          };
          continue;
        }
        this.authorization.final = {
          status: response.status,
          headers: interestingHeaders(response.headers),
          body: body.slice(0, 4000),
        };
        return;
      }
      const target = new URL(location, next);
      step.location = target.origin + target.pathname;
      await response.body?.cancel();
      if (target.origin === redirectUri.origin && target.pathname === redirectUri.pathname) {
        this._takeAuthorizationResponse(target);
        return;
      }
      next = target;
      init = { redirect: "manual" };
    }
    this.authorization.final = { error: `more than ${MAX_REDIRECTS} redirects` };
  }

  // RFC 6749 §4.1.2 (code, state; or error) and RFC 9207 (iss). The TS SDK 1.x does not check
  // iss itself; it is recorded for the test to compare with the authorization server's issuer.
  _takeAuthorizationResponse(target) {
    const answer = Object.fromEntries(target.searchParams);
    this.authorization.response = answer;
    this.authorization.state_matches = answer.state === this._state;
    if (answer.code !== undefined && this.authorization.state_matches) this.authorization.code = answer.code;
  }
}

// The daemon's consent page: its form's action and hidden fields (consent_id, csrf); undefined
// for any other page.
function consentForm(html) {
  const action = /<form[^>]*action="([^"]+)"/.exec(html);
  if (action === null || !action[1].endsWith("/oauth/consent")) return undefined;
  const fields = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1]] = match[2].replaceAll("&quot;", '"').replaceAll("&amp;", "&");
  }
  return { action: action[1], fields };
}
