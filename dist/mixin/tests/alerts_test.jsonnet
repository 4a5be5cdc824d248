// promtool test rules: the alerts and recording rules against the input
// series of real runs (real-series.json, recorded by record-series.py
// from nfsrdmad on committed lab captures), first as they were scraped,
// then with faults injected on top of them.  What fires is worked out
// from the values put in here (the comment by each fault), never read
// back from promtool.  Built into tests/alerts_test.yaml (JSON, which is
// YAML) by the Makefile.
local mixin = import '../mixin.libsonnet';
local real = import 'real-series.json';

local rules = { [r.alert]: r for g in mixin.prometheusAlerts.groups for r in g.rules if std.objectHas(r, 'alert') };
local names = std.objectFields(rules);
local runs = real.wire + real.collector;

// a series of the real runs by metric name and labels
local is(s, name, lab) =
  s.name == name && std.length([k for k in std.objectFields(lab) if std.get(s.labels, k) != lab[k]]) == 0;
local pick(name, lab) =
  local m = [s for s in runs if is(s, name, lab)];
  assert std.length(m) == 1 : 'real-series.json: %d series match %s %s' % [std.length(m), name, std.toString(lab)];
  m[0];
local count(values) = std.length(std.split(values, ' '));

local without(o, ks) = { [k]: o[k] for k in std.objectFields(o) if !std.member(ks, k) };

// the static part of an alert's annotations: the runbook and its URL
local runbook(name) = {
  runbook: rules[name].annotations.runbook,
  runbook_url: rules[name].annotations.runbook_url,
};

// a dashboard target's expr as Grafana sends it: $__rate_interval 1m and
// the variables as chosen (vars), every other one "All" (.*)
local dash = mixin.grafanaDashboards;
local panelExprs(file, title) = [t.expr for p in dash[file].panels if p.title == title for t in p.targets];
local grafana(expr, vars) =
  local e = std.strReplace(expr, '$__rate_interval', '1m');
  local chosen = std.foldl(function(x, k) std.strReplace(x, '"$' + k + '"', '"' + vars[k] + '"'), std.objectFields(vars), e);
  std.foldl(function(x, k) std.strReplace(x, '"$' + k + '"', '".*"'),
            ['job', 'instance', 'protocol', 'operation', 'client', 'server', 'transport', 'phase', 'fphase'], chosen);

// ---- A: the real runs as scraped, one sample a second -------------------
// server-restart at recorded pace: 21 scrapes (its RPCs come in from about
// 8-10 s), the collector and forwarder 3 each; then each series holds its
// last value for 20 minutes.  The captures' rates are a few RPCs a second
// at most, nothing is dropped, credits stay 64, the join's clock
// uncertainties are 0.70-0.97 ms (under the 2 ms threshold), two RDMA
// connections appear (the reconnect: under the storm threshold of 3):
// nothing may fire.
local asScraped = {
  name: 'real runs as scraped: no alert fires',
  interval: '1s',
  input_series: [{ series: s.series, values: '%s %s+0x1200' % [s.values, s.last] } for s in runs],
  alert_rule_test: [{ eval_time: t, alertname: n, exp_alerts: [] } for t in ['1m', '10m', '20m'] for n in names],
  promql_expr_test: [
    {
      // conn 3 (QP 17) before the restart, conn 4 (QP 20) after it
      expr: 'instance_client_server:nfsrdma_connections:new10m',
      eval_time: '1m',
      exp_samples: [{ labels: 'instance_client_server:nfsrdma_connections:new10m{job="nfsrdmad",instance="server-restart:9464",client="10.9.0.2",server="10.9.0.1",transport="rdma"}', value: 2 }],
    },
    {
      // ten minutes on, both were there ten minutes before
      expr: 'instance_client_server:nfsrdma_connections:new10m',
      eval_time: '15m',
      exp_samples: [],
    },
    {
      expr: 'max(nfsrdma_join_clock_uncertainty_seconds)',
      eval_time: '1m',
      // the largest of the recorded pairs' uncertainties (each constant)
      exp_samples: [{ labels: '{}', value: std.foldl(std.max, [std.parseJson(x.last) for x in runs if x.name == 'nfsrdma_join_clock_uncertainty_seconds'], 0) }],
    },
  ],
};

// ---- B: faults injected on the real runs, one sample a minute -----------
// The real samples become minutes 0-20 (wire) and 0-2 (collector,
// forwarder); from there every series goes on to minute M holding its
// last value, except those a fault changes.
local M = 180;
local S = 150;   // the phase shift's start
local hold(s) = '%s %s+0x%d' % [s.values, s.last, M - count(s.values)];
// every fault starts at minute 21, after the wire run's last real sample:
// a shorter run holds its last value until then; seg gives minutes 21..M
local from21(s, seg) =
  local n = count(s.values);
  (if n < 21 then '%s %s+0x%d' % [s.values, s.last, 20 - n] else s.values) + ' ' + seg;
local grow(s, step) = from21(s, '%s+%gx%d' % [s.last, step, M - 21]);
local sr = { instance: 'server-restart:9464' };
local read = sr { operation: 'READ' };
local write = sr { operation: 'WRITE' };
local conn4sel = sr { transport: 'rdma', conn: '4' };
local clksel = { vantage_a: 'wire', host_b: 'client-a' };
local slowBucket(s) = std.member(['0.25', '1', '10', '+Inf'], s.labels.le);
local fault(s) =
  // 1. READ gets slow: 60 RPCs a minute, each 0.1-0.25 s (the buckets
  //    from le=0.25 up grow, those below do not): over a window holding
  //    only them, p99 = 0.1 + 0.15 * 0.99 = 0.2485 s > 0.1 s
  if is(s, 'nfsrdma_rpc_requests_total', read) then grow(s, 60)
  else if is(s, 'nfsrdma_rpc_duration_seconds_bucket', read) && slowBucket(s) then grow(s, 60)
  // 2. READ calls go unanswered, 2 a minute: 20 in 10 minutes
  else if is(s, 'nfsrdma_rpc_unanswered_total', read) then grow(s, 2)
  // 3. WRITE at 60 RPCs a minute spends 0.6 s a minute in server, nothing
  //    else; from minute S+1 also 5.4 s a minute in pull: pull's share
  //    goes 0 -> 0.9, server's 1 -> 0.1 (both moved by 0.9)
  else if is(s, 'nfsrdma_rpc_requests_total', write) then grow(s, 60)
  else if is(s, 'nfsrdma_rpc_phase_seconds_total', write { phase: 'server' }) then grow(s, 0.6)
  else if is(s, 'nfsrdma_rpc_phase_seconds_total', write { phase: 'pull' }) then '%s %s+0x%d %s+5.4x%d' % [s.values, s.last, S - count(s.values), s.last, M - S - 1]
  // 4. the server grants 4 credits on conn 4 (QP 20) from minute 21,
  //    which carries 60 RPCs a minute
  else if is(s, 'nfsrdma_connection_credits', conn4sel) then from21(s, '4+0x%d' % (M - 21))
  else if is(s, 'nfsrdma_connection_requests_total', conn4sel) then grow(s, 60)
  // 5. the probes lose 5 records a minute: 50 in 10 minutes
  else if is(s, 'nfsrdma_dropped_records_total', sr { reason: 'source' }) then grow(s, 5)
  // 6. the forwarder drops 3 a minute (30), the collector loses 1 (10)
  else if is(s, 'nfsrdma_forward_records_total', { instance: 'forwarder:9464', result: 'dropped' }) then grow(s, 3)
  else if is(s, 'nfsrdma_collect_records_total', { instance: 'collector:9464', result: 'lost' }) then grow(s, 1)
  // 7. the client's clock against the wire's: 5 ms uncertain
  else if is(s, 'nfsrdma_join_clock_uncertainty_seconds', clksel) then from21(s, '0.005+0x%d' % (M - 21))
  // 8. one fused RPC a minute negative because of the clocks (10)
  else if is(s, 'nfsrdma_join_negative_total', { reason: 'clock' }) then grow(s, 1)
  else hold(s);

local injected = [
  // 9. four more RDMA connections from the same client, one a minute
  //    from minute 30 (new QP pairs: reconnects)
  {
    series: 'nfsrdma_connection_requests_total{job="nfsrdmad",instance="server-restart:9464",conn="%d",client="10.9.0.2",client_qp="%d",server="10.9.0.1",server_qp="%d",transport="rdma"}' % [8 + i, 30 + i, 40 + i],
    values: '_x%d 1+1x%d' % [30 + i, M - 30 - i],
  }
  for i in std.range(0, 3)
] + [
  // 10. credit overruns (finding 5), one a minute from minute 21: 10 in 10 minutes
  { series: 'nfsrdma_findings_total{job="nfsrdmad",instance="server-restart:9464",finding="5"}', values: '_x21 0+1x%d' % (M - 21) },
  // 11. node_exporter: client-a's clock in sync until minute 20, then not (max error 16 s)
  { series: 'node_timex_sync_status{job="node",instance="client-a:9100"}', values: '1+0x20 0+0x%d' % (M - 21) },
  { series: 'node_timex_maxerror_seconds{job="node",instance="client-a:9100"}', values: '0.001+0x20 16+0x%d' % (M - 21) },
];

local base = { job: 'nfsrdmad', instance: 'server-restart:9464' };
local readLabels = base { protocol: 'NFSv3', operation: 'READ', transport: 'rdma' };
local writeLabels = base { protocol: 'NFSv3', operation: 'WRITE', transport: 'rdma' };
local pair = { client: '10.9.0.2', server: '10.9.0.1' };
local conn4 = pick('nfsrdma_connection_credits', conn4sel).labels;
local fwd = pick('nfsrdma_forward_records_total', { instance: 'forwarder:9464', result: 'dropped' }).labels;
local lost = pick('nfsrdma_collect_records_total', { instance: 'collector:9464', result: 'lost' }).labels;
local clk = pick('nfsrdma_join_clock_uncertainty_seconds', clksel).labels;

local fires(t, name, labels, summary, description) = {
  eval_time: t,
  alertname: name,
  exp_alerts: [{
    exp_labels: labels { severity: 'warning' },
    exp_annotations: runbook(name) { summary: summary, description: description },
  }],
};
local quiet(t, name) = { eval_time: t, alertname: name, exp_alerts: [] };

local baselinePanel = [e for e in panelExprs('nfsrdma-phases.json', 'Share now and baseline (recorded)') if std.length(std.findSubstr('offset', e)) > 0];
assert std.length(baselinePanel) == 1;

local faults = {
  name: 'faults injected on the real runs',
  interval: '1m',
  input_series: [{ series: s.series, values: fault(s) } for s in runs] + injected,
  // the RPC phases dashboard's baseline (it needs an hour of history, so
  // tests/unit/mixin.sh's live Prometheus cannot give it): WRITE's share
  // over minutes 55-115 is all server (fault 3)
  promql_expr_test: [{
    expr: grafana(baselinePanel[0], { instance: 'server-restart:9464', operation: 'WRITE', phase: 'pull|server' }),
    eval_time: '175m',
    exp_samples: [
      { labels: 'instance_operation_phase:nfsrdma_rpc_phase_seconds:share1h{job="nfsrdmad",instance="server-restart:9464",protocol="NFSv3",operation="WRITE",transport="rdma",phase="%s"}' % ph[0], value: ph[1] }
      for ph in [['pull', 0], ['server', 1]]
    ],
  }],
  alert_rule_test: [
    // before any fault (the real runs at minutes 0-20): nothing
    quiet('20m', n)
    for n in names
  ] + [
    // 1: pending from minute ~22, firing 10 minutes later
    quiet('28m', 'NfsrdmaRpcLatencyHigh'),
    fires('40m', 'NfsrdmaRpcLatencyHigh', readLabels { quantile: '0.99' },
          'NFSv3 READ p99 latency is 248.5ms on server-restart:9464.',
          'The 99th percentile of NFSv3 READ RPCs over rdma seen by server-restart:9464 has been 248.5ms for 10m, above its threshold.'),
    // 2
    fires('40m', 'NfsrdmaUnansweredCalls', readLabels + pair,
          '20 NFSv3 READ calls from 10.9.0.2 to 10.9.0.1 went unanswered.',
          'server-restart:9464 saw 20 NFSv3 READ calls from 10.9.0.2 to 10.9.0.1 over rdma in the last 10m that were never answered.'),
    // 3: before the shift the share is steady (the baseline, minutes
    // 25-85, is all server like now); after it pull and server moved by 0.9
    quiet('145m', 'NfsrdmaPhaseShareShift'),
    {
      eval_time: '175m',
      alertname: 'NfsrdmaPhaseShareShift',
      exp_alerts: [
        {
          exp_labels: writeLabels { phase: ph, severity: 'warning' },
          exp_annotations: runbook('NfsrdmaPhaseShareShift') {
            summary: 'The %s phase of NFSv3 WRITE moved by 90%% of its time on server-restart:9464.' % ph,
            description: "Over the last 5m the %s phase holds a share of NFSv3 WRITE's time that differs by 90%% (absolute) from its share over the 1h that ended 1h ago: where the time of this operation goes has changed." % ph,
          },
        }
        for ph in ['pull', 'server']
      ],
    },
    // 4
    fires('40m', 'NfsrdmaCreditStarvation', conn4,
          'The server grants 4 credits on a busy RPC-over-RDMA connection from 10.9.0.2.',
          '10.9.0.1 last granted 4 credits (fewer than 8) on connection 4 from 10.9.0.2 (QP 20), which carried RPCs in the last 5m: the client can have no more calls than that in flight.'),
    // 10
    fires('40m', 'NfsrdmaCreditOverrun', base,
          'A client exceeded the credits its server granted (10 calls), seen by server-restart:9464.',
          "server-restart:9464 saw 10 calls in 10m that a caller sent with more calls outstanding than the server's last credit grant (finding credit-overrun, RFC 8166 section 3.3.1)."),
    // 5
    fires('40m', 'NfsrdmaRecordsDropped', base { reason: 'source' },
          'nfsrdmad on server-restart:9464 lost 50 records (source).',
          "nfsrdmad on server-restart:9464 lost 50 records in 10m: reason queue = its queue between sources and aggregation was full; reason source = lost before user space (a probe's or XDP ring full, packets the capture dropped) or evicted unanswered. Its numbers undercount by that much."),
    // 6
    fires('40m', 'NfsrdmaForwarderDropping', without(fwd, ['result']),
          'nfsrdmad on forwarder:9464 dropped 30 records it should have forwarded to %s.' % fwd.peer,
          'The forwarder on forwarder:9464 found its queue to the collector %s full and dropped 30 records in 10m: the collector is slow, away, or the link is down.' % fwd.peer),
    fires('40m', 'NfsrdmaCollectorLosingRecords', lost,
          'The collector collector:9464 lost 10 records (lost).',
          "The collector on collector:9464 counted 10 records lost in 10m (lost: sequence gaps from forwarder client-a; malformed: messages that did not decode; hosts_overflow: past the join's host limit, not joined)."),
    // 7
    fires('40m', 'NfsrdmaClockAlignmentUncertain', clk,
          "The collector cannot align client-a's clock with local's better than 5ms.",
          'The join on collector:9464 holds the offset between local (wire) and client-a (client) only within +/- 5ms: fused phases shorter than that between those hosts cannot be told apart.'),
    // 8
    fires('40m', 'NfsrdmaClockNegativePhases', { job: 'nfsrdmad', instance: 'collector:9464' },
          '10 fused RPCs had a phase negative beyond the clocks\' uncertainty on collector:9464.',
          "The join on collector:9464 fused 10 RPCs in 10m whose phases came out negative although each vantage's own times were in order: two hosts' clocks are further apart than the alignment believed (a clock step, an unsynchronised host)."),
    // 9: four new ones within 10 minutes at minute 35; none new at 50
    fires('35m', 'NfsrdmaReconnectStorm', { job: 'nfsrdmad', instance: 'server-restart:9464', transport: 'rdma' } + pair,
          '10.9.0.2 made 4 new rdma connections to 10.9.0.1 within 10m.',
          'server-restart:9464 saw 4 connections between 10.9.0.2 and 10.9.0.1 over rdma appear within 10m (each RDMA reconnect is a new QP pair).'),
    quiet('50m', 'NfsrdmaReconnectStorm'),
    // 11
    fires('40m', 'NfsrdmaHostClockNotSynchronised', { job: 'node', instance: 'client-a:9100' },
          'The clock of client-a:9100 is not synchronised.',
          "node_exporter reports the kernel clock of client-a:9100 unsynchronised (adjtimex: not in sync, its maximum error at 16 s) for 10m. nfsrdmad reads the same adjtimex state for its clock lines but does not export it on /metrics: this alert uses node_exporter's timex collector."),
  ],
};

// ---- C: the panel on node_exporter's mountstats (no NFS mount here) ----
// one mount: 60 requests and 90 transmissions a minute (30 retransmitted:
// 0.5 a second), 15 transport connects a minute (0.25 a second)
local mount = 'job="node",instance="client-a:9100",export="10.9.0.1:/export",protocol="rdma",mountaddr="10.9.0.1"';
local kernelPanel = panelExprs('nfsrdma-overview.json', 'Kernel client: retransmissions and connects (node_exporter)');
assert std.length(kernelPanel) == 2;
local nodePanels = {
  name: "node_exporter's mountstats panel",
  interval: '1m',
  input_series: [
    { series: 'node_mountstats_nfs_operations_requests_total{%s,operation="READ"}' % mount, values: '0+60x10' },
    { series: 'node_mountstats_nfs_operations_transmissions_total{%s,operation="READ"}' % mount, values: '0+90x10' },
    { series: 'node_mountstats_nfs_transport_connect_total{%s}' % mount, values: '0+15x10' },
  ],
  promql_expr_test: [
    {
      expr: grafana(kernelPanel[i], {}),
      eval_time: '5m',
      exp_samples: [{ labels: '{instance="client-a:9100",export="10.9.0.1:/export"}', value: [0.5, 0.25][i] }],
    }
    for i in [0, 1]
  ],
};

// JSON is YAML: jsonnet 0.18's std.manifestYamlDoc takes minutes on a
// file this size, its JSON output no time
{
  rule_files: ['../alerts.yaml', '../rules.yaml'],
  evaluation_interval: '1m',
  tests: [asScraped, faults, nodePanels],
}
