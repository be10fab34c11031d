// A minimal GraphQL client for the pages under /ui/: same origin, no credentials beyond what
// the browser already holds. The endpoint is relative so a prefixed mount still works.

const ENDPOINT = new URL("../graphql", window.location.href).toString();

export class GraphQLError extends Error {
  constructor(message, code) {
    super(message);
    this.code = code;
  }
}

export async function query(text, variables = {}) {
  let response;
  try {
    response = await fetch(ENDPOINT, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ query: text, variables }),
    });
  } catch (error) {
    throw new GraphQLError(`the API did not answer (${error.message})`, "NETWORK");
  }
  let body;
  try {
    body = await response.json();
  } catch {
    throw new GraphQLError(`the API answered ${response.status} without JSON`, "HTTP");
  }
  if (body.errors && body.errors.length) {
    const first = body.errors[0];
    throw new GraphQLError(first.message, first.extensions?.code ?? "ERROR");
  }
  return body.data;
}

/** Query-string parameters of the page, with defaults. */
export function params(defaults) {
  const search = new URLSearchParams(window.location.search);
  const out = { ...defaults };
  for (const name of Object.keys(defaults)) {
    const value = search.get(name);
    if (value !== null && value !== "") out[name] = value;
  }
  return out;
}

/** Mark the page state for people (a message) and for tests (`body[data-state]`). */
export function setState(state, message = "") {
  document.body.dataset.state = state;
  const status = document.getElementById("status");
  if (status) {
    status.textContent = message;
    status.hidden = !message;
    status.className = `status ${state}`;
  }
}
