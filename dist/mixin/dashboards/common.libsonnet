// Selectors and variables the three dashboards share.
local p = import '../lib/panels.libsonnet';

{
  // every nfsrdmad series of the chosen targets
  base(c):: c.nfsrdmaSelector + ',job=~"$job",instance=~"$instance"',
  // an RPC series: per operation, client, server and transport
  rpc(c):: self.base(c) + ',protocol=~"$protocol",operation=~"$operation",client=~"$client",server=~"$server",transport=~"$transport"',
  // a per-operation series (the phase counters, the chunk mix)
  op(c):: self.base(c) + ',protocol=~"$protocol",operation=~"$operation",transport=~"$transport"',
  // a connection series
  conn(c):: self.base(c) + ',client=~"$client",server=~"$server",transport=~"$transport"',

  vars(c, metric='nfsrdma_rpc_requests_total'):: [
    p.labelVar('job', 'Job', 'nfsrdma_records_total', c.nfsrdmaSelector),
    p.labelVar('instance', 'nfsrdmad', 'nfsrdma_records_total', c.nfsrdmaSelector + ',job=~"$job"'),
    p.labelVar('protocol', 'Protocol', metric, self.base(c)),
    p.labelVar('operation', 'Operation', metric, self.base(c) + ',protocol=~"$protocol"'),
    p.labelVar('client', 'Client', metric, self.base(c)),
    p.labelVar('server', 'Server', metric, self.base(c)),
    p.labelVar('transport', 'Transport', metric, self.base(c)),
  ],

  quantiles(expr_by, legend):: [
    p.target('histogram_quantile(%s, %s)' % [q, expr_by], '%s %s' % [legend, n])
    for q in ['0.5', '0.9', '0.99']
    for n in [{ '0.5': 'p50', '0.9': 'p90', '0.99': 'p99' }[q]]
  ],
}
