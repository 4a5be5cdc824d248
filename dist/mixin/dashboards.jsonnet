// jsonnet -m dashboards_out dashboards.jsonnet: one file per dashboard
(import 'mixin.libsonnet').grafanaDashboards
