// The nfsrdma monitoring mixin (the layout of node_exporter's
// docs/node-mixin): grafanaDashboards, prometheusAlerts, prometheusRules,
// with the settings of config.libsonnet.  docs/mixin.md says how to build
// and import it and what each alert means.
(import 'config.libsonnet') +
(import 'alerts/alerts.libsonnet') +
(import 'rules/rules.libsonnet') +
(import 'dashboards/dashboards.libsonnet')
