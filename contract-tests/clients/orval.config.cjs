// orval, fetch client, one file, base URL from the served document's `servers` entry: what an
// integrator would run. Input and output are set by contract-tests/gate-clients.sh.
module.exports = {
  offerdesk: {
    input: { target: process.env.CONTRACT_CLIENTS_DOCUMENT },
    output: {
      target: `${process.env.CONTRACT_CLIENTS_OUT}/orval/offerdesk.ts`,
      client: 'fetch',
      mode: 'single',
      baseUrl: { getBaseUrlFromSpecification: true },
    },
  },
};
