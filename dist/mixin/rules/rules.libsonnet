// Recording rules: the queries the alerts and the dashboards' overview
// panels would otherwise evaluate over every bucket series each time.
// Names follow Prometheus' level:metric:operations convention; the level
// says which labels a series keeps besides job and instance:
//   instance_operation: protocol, operation, transport
//   instance_operation_phase: ... and phase
//   instance_client_server: client, server, transport
local sel(c, extra='') = '{' + c.nfsrdmaSelector + (if extra == '' then '' else ',' + extra) + '}';
local by(c, more) = std.join(', ', c.instanceLabels + more);

{
  prometheusRules+:: {
    local c = $._config,
    local op = ['protocol', 'operation', 'transport'],
    local cs = ['client', 'server', 'transport'],
    groups+: [
      {
        name: 'nfsrdma.rules',
        rules: [
          {
            record: 'instance_operation:nfsrdma_rpc_requests:rate5m',
            expr: 'sum by (%s) (rate(nfsrdma_rpc_requests_total%s[%s]))' % [by(c, op), sel(c), c.rateInterval],
          },
          {
            record: 'instance_operation:nfsrdma_rpc_unanswered:rate5m',
            expr: 'sum by (%s) (rate(nfsrdma_rpc_unanswered_total%s[%s]))' % [by(c, op), sel(c), c.rateInterval],
          },
          {
            record: 'instance_operation:nfsrdma_rpc_duration_seconds_bucket:rate5m',
            expr: 'sum by (%s) (rate(nfsrdma_rpc_duration_seconds_bucket%s[%s]))' % [by(c, op + ['le']), sel(c), c.rateInterval],
          },
        ] + [
          {
            record: 'instance_operation:nfsrdma_rpc_duration_seconds:histogram_quantile',
            expr: 'histogram_quantile(%g, instance_operation:nfsrdma_rpc_duration_seconds_bucket:rate5m)' % q,
            labels: { quantile: '%g' % q },
          }
          for q in c.quantiles
        ] + [
          {
            record: 'instance_client_server:nfsrdma_rpc_duration_seconds_bucket:rate5m',
            expr: 'sum by (%s) (rate(nfsrdma_rpc_duration_seconds_bucket%s[%s]))' % [by(c, cs + ['le']), sel(c), c.rateInterval],
          },
          {
            record: 'instance_client_server:nfsrdma_rpc_duration_seconds:histogram_quantile',
            expr: 'histogram_quantile(0.99, instance_client_server:nfsrdma_rpc_duration_seconds_bucket:rate5m)',
            labels: { quantile: '0.99' },
          },
          // the phase split: seconds per second in each phase, and each
          // phase's share of the operation's time (the phases partition
          // every answered RPC, docs/record.md)
          {
            record: 'instance_operation_phase:nfsrdma_rpc_phase_seconds:rate5m',
            expr: 'sum by (%s) (rate(nfsrdma_rpc_phase_seconds_total%s[%s]))' % [by(c, op + ['phase']), sel(c), c.rateInterval],
          },
          {
            record: 'instance_operation_phase:nfsrdma_rpc_phase_seconds:share5m',
            expr: |||
              instance_operation_phase:nfsrdma_rpc_phase_seconds:rate5m
                / ignoring (phase) group_left
              sum without (phase) (instance_operation_phase:nfsrdma_rpc_phase_seconds:rate5m)
            |||,
          },
          {
            record: 'instance_operation_phase:nfsrdma_rpc_phase_seconds:rate1h',
            expr: 'sum by (%s) (rate(nfsrdma_rpc_phase_seconds_total%s[%s]))' % [by(c, op + ['phase']), sel(c), c.baselineInterval],
          },
          {
            record: 'instance_operation_phase:nfsrdma_rpc_phase_seconds:share1h',
            expr: |||
              instance_operation_phase:nfsrdma_rpc_phase_seconds:rate1h
                / ignoring (phase) group_left
              sum without (phase) (instance_operation_phase:nfsrdma_rpc_phase_seconds:rate1h)
            |||,
          },
          // connections seen now that were not there reconnectWindow ago
          // (each RDMA reconnect is a new QP pair, so a new series)
          {
            record: 'instance_client_server:nfsrdma_connections:new10m',
            expr: |||
              count by (%(by)s) (
                nfsrdma_connection_requests_total%(sel)s
                  unless
                nfsrdma_connection_requests_total%(any)s offset %(w)s
              )
            ||| % {
              by: by(c, cs),
              sel: sel(c, 'transport=~"%s"' % c.reconnectTransports),
              any: sel(c),
              w: c.reconnectWindow,
            },
          },
        ],
      },
      {
        // the collector's fused records (nfsrdmad --collect)
        name: 'nfsrdma.fused.rules',
        rules: [
          {
            record: 'instance_operation:nfsrdma_rpc_fused_duration_seconds_bucket:rate5m',
            expr: 'sum by (%s) (rate(nfsrdma_rpc_fused_duration_seconds_bucket%s[%s]))' % [by(c, op + ['le']), sel(c), c.rateInterval],
          },
          {
            record: 'instance_operation:nfsrdma_rpc_fused_duration_seconds:histogram_quantile',
            expr: 'histogram_quantile(0.99, instance_operation:nfsrdma_rpc_fused_duration_seconds_bucket:rate5m)',
            labels: { quantile: '0.99' },
          },
          {
            record: 'instance_operation_place:nfsrdma_rpc_place_seconds:rate5m',
            expr: 'sum by (%s) (rate(nfsrdma_rpc_place_seconds_total%s[%s]))' % [by(c, op + ['place']), sel(c), c.rateInterval],
          },
          {
            record: 'instance_operation_place:nfsrdma_rpc_place_seconds:share5m',
            expr: |||
              instance_operation_place:nfsrdma_rpc_place_seconds:rate5m
                / ignoring (place) group_left
              sum without (place) (instance_operation_place:nfsrdma_rpc_place_seconds:rate5m)
            |||,
          },
          {
            record: 'instance_operation_place:nfsrdma_rpc_verdict:rate5m',
            expr: 'sum by (%s) (rate(nfsrdma_rpc_verdict_total%s[%s]))' % [by(c, op + ['place']), sel(c), c.rateInterval],
          },
        ],
      },
    ],
  },
}
