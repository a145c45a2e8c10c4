-- Development mappings of `offerdesk listen` (README "Receiving webhooks on your laptop"): the
-- loopback port of the local HTTPS receiver an endpoint was created for, and the certificate of
-- the local CA to trust for that endpoint only. A worker reads these rows only while development
-- mappings are enabled (config webhooks.devListen: the embedded database or OFFERDESK_DEV_LISTEN=1,
-- never with NODE_ENV=production); otherwise the endpoint's internal name is refused like any other.
create table dev_listen_endpoints (
  endpoint_id uuid constraint dev_listen_endpoints_pkey primary key
    constraint dev_listen_endpoints_endpoint_fkey references webhook_endpoints (id) on delete cascade,
  -- Loopback only: a mapping can never send a webhook off this machine.
  address text not null constraint dev_listen_endpoints_address_check check (address in ('127.0.0.1', '::1')),
  port integer not null constraint dev_listen_endpoints_port_check check (port between 1 and 65535),
  ca_pem text not null constraint dev_listen_endpoints_ca_pem_check
    check (ca_pem like '-----BEGIN CERTIFICATE-----%' and length(ca_pem) <= 16384),
  created_at timestamptz(3) not null,
  updated_at timestamptz(3) not null
);
