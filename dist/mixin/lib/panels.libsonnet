// Plain Grafana JSON (no grafonnet: it is not in Debian).  A dashboard is
// a list of rows, each a list of panels laid out left to right, two or
// three to a line.
{
  datasource:: { type: 'prometheus', uid: '${datasource}' },

  target(expr, legend='', instant=false):: {
    expr: expr,
    legendFormat: legend,
    [if instant then 'instant']: true,
    [if instant then 'format']: 'table',
  },

  // a time series panel; unit: Grafana's (s, percentunit, reqps, short)
  timeseries(title, description, targets, unit='short', stack=false):: {
    type: 'timeseries',
    title: title,
    description: description,
    datasource: $.datasource,
    targets: targets,
    fieldConfig: {
      defaults: {
        unit: unit,
        custom: {
          drawStyle: 'line',
          fillOpacity: if stack then 60 else 10,
          lineWidth: 1,
          stacking: { mode: if stack then 'normal' else 'none', group: 'A' },
          spanNulls: false,
        },
      },
      overrides: [],
    },
    options: {
      legend: { displayMode: 'table', placement: 'bottom', calcs: ['mean', 'max', 'lastNotNull'] },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
  },

  // a table of instant values, one row per series
  table(title, description, targets, unit='short'):: {
    type: 'table',
    title: title,
    description: description,
    datasource: $.datasource,
    targets: targets,
    fieldConfig: { defaults: { unit: unit }, overrides: [] },
    options: { showHeader: true },
    transformations: [{ id: 'merge', options: {} }],
  },

  // template variables: the data source, then label_values queries
  datasourceVar:: {
    name: 'datasource',
    label: 'Data source',
    type: 'datasource',
    query: 'prometheus',
    current: {},
    hide: 0,
    refresh: 1,
    regex: '',
  },
  labelVar(name, label, metric, selector, labelName=name):: {
    name: name,
    label: label,
    type: 'query',
    datasource: $.datasource,
    query: { query: 'label_values(%s{%s}, %s)' % [metric, selector, labelName], refId: name },
    definition: 'label_values(%s{%s}, %s)' % [metric, selector, labelName],
    refresh: 2,
    includeAll: true,
    multi: true,
    allValue: '.*',
    current: { selected: true, text: ['All'], value: ['$__all'] },
    sort: 1,
    hide: 0,
    regex: '',
  },

  // rows: [{ title, panels, [width] }]; each panel gets an id and gridPos
  dashboard(c, uid, title, description, vars, rows):: {
    local perLine(r) = std.get(r, 'perLine', 2),
    local w(r) = 24 / perLine(r),
    local h = 8,
    // the y where each row starts: its header, then its lines of panels
    local heights = [1 + h * std.ceil(std.length(r.panels) / perLine(r)) for r in rows],
    local ys = std.foldl(function(acc, x) acc + [acc[std.length(acc) - 1] + x], heights, [0]),
    uid: c.dashboardUIDPrefix + uid,
    title: title,
    description: description,
    tags: c.dashboardTags,
    timezone: c.dashboardTimezone,
    refresh: c.dashboardRefresh,
    editable: true,
    graphTooltip: 1,
    schemaVersion: 37,
    version: 1,
    time: { from: 'now-1h', to: 'now' },
    timepicker: {},
    annotations: { list: [] },
    links: [{ type: 'dashboards', tags: c.dashboardTags, asDropdown: true, title: 'nfsrdma', includeVars: true, keepTime: true }],
    templating: { list: [$.datasourceVar] + vars },
    panels: std.flattenArrays([
      local r = rows[i];
      local base = 100 * (i + 1);
      [{ type: 'row', title: r.title, collapsed: false, id: base, gridPos: { x: 0, y: ys[i], w: 24, h: 1 }, panels: [] }] + [
        r.panels[j] {
          id: base + j + 1,
          gridPos: { x: (j % perLine(r)) * w(r), y: ys[i] + 1 + h * std.floor(j / perLine(r)), w: w(r), h: h },
        }
        for j in std.range(0, std.length(r.panels) - 1)
      ]
      for i in std.range(0, std.length(rows) - 1)
    ]),
  },
}
