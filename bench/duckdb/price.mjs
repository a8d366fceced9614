#!/usr/bin/env node
// DuckDB reference for the reconcile benchmark: the same job as
// `tokenfare reconcile --calls FILE -o json`, written as one SQL query.
//
//   node bench/duckdb/price.mjs big.csv
//
// It reads a flat LiteLLM spend log CSV, the dump of LiteLLM's table (told
// by a metadata column, whose JSON holds the cache counts) or the same rows
// as /spend/logs answers them (a JSON array), drops repeated request ids (first
// row kept), sets failed calls apart, gives each call its DeepSeek period by
// endTime on the Beijing calendar (peak = Mon-Fri 09:00-12:00 and 14:00-18:00,
// 2026 statutory holidays off-peak all day, make-up workdays priced as
// weekdays) and prints, per model, the official cost against the spend the
// gateway recorded, as JSON. Money is DECIMAL throughout: tokens are summed
// per (model, period) first, then multiplied by per-token DECIMAL rates.
//
// Asia/Shanghai has been UTC+8 without DST since 1991, so local time is
// endTime + 8 hours; this avoids needing DuckDB's ICU extension.

import { open } from 'node:fs/promises';
import { DuckDBInstance } from '@duckdb/node-api';

// Off-peak USD per 1M tokens: cache hit, cache miss, cache write, output.
// Peak multiplies by peak_factor. DeepSeek rates are the deepseek-flash
// tariff (legacy v4-flash names billed alike) and v4-pro; cache writes at
// the cache-miss rate. gpt-4o and Claude have flat list prices.
const TARIFF = [
  ['deepseek-flash', '0.003', '0.15', '0.15', '0.60', 2],
  ['deepseek/deepseek-v4-flash', '0.003', '0.15', '0.15', '0.60', 2],
  ['deepseek-v4-flash', '0.003', '0.15', '0.15', '0.60', 2],
  ['deepseek-v4-pro', '0.022', '0.66', '0.66', '1.98', 2],
  ['gpt-4o', '1.25', '2.50', '2.50', '10.00', 1],
  ['claude-sonnet-4-5', '0.30', '3.00', '3.75', '15.00', 1],
];

// 2026 PRC statutory holidays and make-up workdays (State Council notice).
const HOLIDAYS = [
  '2026-01-01', '2026-01-02', '2026-01-03',
  '2026-02-15', '2026-02-16', '2026-02-17', '2026-02-18', '2026-02-19',
  '2026-02-20', '2026-02-21', '2026-02-22', '2026-02-23',
  '2026-04-04', '2026-04-05', '2026-04-06',
  '2026-05-01', '2026-05-02', '2026-05-03', '2026-05-04', '2026-05-05',
  '2026-06-19', '2026-06-20', '2026-06-21',
  '2026-09-25', '2026-09-26', '2026-09-27',
  '2026-10-01', '2026-10-02', '2026-10-03', '2026-10-04', '2026-10-05',
  '2026-10-06', '2026-10-07',
];
const MAKEUP_WORKDAYS = ['2026-01-04', '2026-02-14', '2026-02-28', '2026-05-09', '2026-09-20', '2026-10-10'];

const sqlString = (s) => `'${String(s).replaceAll("'", "''")}'`;
const dates = (list) => list.map((d) => `(DATE ${sqlString(d)})`).join(', ');
// A USD-per-1M price as an exact per-token DECIMAL literal.
const perToken = (usdPerMillion) =>
  `CAST(${sqlString(usdPerMillion)} AS DECIMAL(18, 6)) * CAST('0.000001' AS DECIMAL(18, 12))`;

// The flat export: one column per count.
function flatRows(file) {
  return `
  SELECT * FROM read_csv(${sqlString(file)}, header = true, delim = ',', quote = '"',
    types = {'request_id': 'VARCHAR', 'spend': 'DECIMAL(18, 12)', 'startTime': 'TIMESTAMP',
             'endTime': 'TIMESTAMP', 'prompt_tokens': 'BIGINT', 'completion_tokens': 'BIGINT',
             'cached_tokens': 'BIGINT', 'cache_creation_tokens': 'BIGINT', 'status': 'VARCHAR',
             'model_group': 'VARCHAR'})
`;
}

// The columns the pricing reads of the table's rows (metadataColumns, the
// types given to DuckDB's reader), from the reader call from, the cache
// counts taken from the metadata JSON where the table keeps them
// (additional_usage_values.prompt_tokens_details).
const metadataColumns = `{'request_id': 'VARCHAR', 'spend': 'DECIMAL(18, 12)', 'startTime': 'TIMESTAMP',
    'endTime': 'TIMESTAMP', 'prompt_tokens': 'BIGINT', 'completion_tokens': 'BIGINT',
    'status': 'VARCHAR', 'model_group': 'VARCHAR', 'metadata': 'JSON'}`;
function metadataRows(from) {
  const usage = '$.additional_usage_values.prompt_tokens_details';
  return `
  SELECT request_id, spend, "startTime", "endTime", prompt_tokens, completion_tokens, status, model_group,
    coalesce(CAST(json_extract(metadata, '${usage}.cached_tokens') AS BIGINT), 0) AS cached_tokens,
    coalesce(CAST(json_extract(metadata, '${usage}.cache_creation_tokens') AS BIGINT), 0) AS cache_creation_tokens
  FROM ${from}
`;
}

// The dump of LiteLLM's table: a CSV whose metadata column is JSON text.
const dumpRows = (file) => metadataRows(`read_csv(${sqlString(file)}, header = true, delim = ',', quote = '"',
    escape = '"', max_line_size = 16777216, types = ${metadataColumns})`);

// LiteLLM's /spend/logs answer: an array of the table's rows as JSON
// objects (bench/dump2json.py), the metadata an object.
const jsonRows = (file) => metadataRows(`read_json(${sqlString(file)}, format = 'array',
    maximum_object_size = 16777216, columns = ${metadataColumns})`);

function query(file, shape) {
  const tariff = TARIFF.map(([model, hit, miss, write, out, factor]) =>
    `(${sqlString(model)}, ${perToken(hit)}, ${perToken(miss)}, ${perToken(write)}, ${perToken(out)}, ${factor})`,
  ).join(',\n    ');
  return `
WITH tariff(model_group, hit, miss, write, out, peak_factor) AS (VALUES
    ${tariff}),
holidays(d) AS (VALUES ${dates(HOLIDAYS)}),
makeup(d) AS (VALUES ${dates(MAKEUP_WORKDAYS)}),
raw AS (${{ flat: flatRows, dump: dumpRows, json: jsonRows }[shape](file)}),
calls AS (
  SELECT model_group, spend, prompt_tokens, completion_tokens, cached_tokens, cache_creation_tokens,
    CASE
      WHEN row_number() OVER (PARTITION BY request_id
             ORDER BY "startTime", "endTime", prompt_tokens, completion_tokens) > 1 THEN 'duplicate'
      WHEN status <> 'success' THEN 'failed'
      ELSE 'ok'
    END AS class,
    "endTime" + INTERVAL 8 HOUR AS local_end
  FROM raw
),
periods AS (
  SELECT *,
    (CAST(local_end AS DATE) IN (SELECT d FROM makeup)
      OR (isodow(local_end) <= 5 AND CAST(local_end AS DATE) NOT IN (SELECT d FROM holidays)))
    AND (hour(local_end) BETWEEN 9 AND 11 OR hour(local_end) BETWEEN 14 AND 17) AS peak
  FROM calls
),
sums AS (
  SELECT model_group, peak,
    count(*) AS rows,
    count(*) FILTER (class = 'duplicate') AS duplicates,
    count(*) FILTER (class = 'failed') AS failed,
    count(*) FILTER (class = 'ok') AS ok,
    sum(spend) AS recorded,
    sum(prompt_tokens - cached_tokens - cache_creation_tokens) FILTER (class = 'ok') AS input,
    sum(cached_tokens) FILTER (class = 'ok') AS cache_read,
    sum(cache_creation_tokens) FILTER (class = 'ok') AS cache_write,
    sum(completion_tokens) FILTER (class = 'ok') AS output
  FROM periods
  GROUP BY ALL
),
priced AS (
  SELECT s.*, t.model_group IS NOT NULL AS known,
    (coalesce(s.input, 0) * t.miss + coalesce(s.cache_read, 0) * t.hit
      + coalesce(s.cache_write, 0) * t.write + coalesce(s.output, 0) * t.out)
      * CASE WHEN s.peak THEN t.peak_factor ELSE 1 END AS official
  FROM sums s LEFT JOIN tariff t USING (model_group)
)
SELECT CASE WHEN grouping(model_group) = 1 THEN '*' ELSE model_group END AS model,
  sum(rows)::BIGINT AS rows,
  coalesce(sum(ok) FILTER (known), 0)::BIGINT AS priced,
  coalesce(sum(ok) FILTER (NOT known), 0)::BIGINT AS unpriced,
  sum(failed)::BIGINT AS failed,
  sum(duplicates)::BIGINT AS duplicate,
  coalesce(sum(ok) FILTER (known AND peak), 0)::BIGINT AS peak_calls,
  sum(recorded)::DECIMAL(38, 12)::VARCHAR AS recorded,
  coalesce(sum(official), 0)::DECIMAL(38, 12)::VARCHAR AS official,
  CASE WHEN sum(official) > 0 THEN round(sum(recorded) / sum(official), 4)::VARCHAR END AS ratio
FROM priced
GROUP BY GROUPING SETS ((model_group), ())
ORDER BY grouping(model_group), model_group`;
}

// firstLine reads the header: a file with a metadata column is the table's
// dump, one that opens with "[" an answer of /spend/logs.
async function firstLine(file) {
  const handle = await open(file);
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(65536), 0, 65536, 0);
    return buffer.subarray(0, bytesRead).toString('utf8').split('\n')[0];
  } finally {
    await handle.close();
  }
}

async function main() {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node price.mjs FILE (a CSV export, the table\'s dump, or a /spend/logs answer)');
    process.exit(2);
  }
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const head = await firstLine(file);
  let shape = 'flat';
  if (head.trimStart().startsWith('[')) {
    shape = 'json';
  } else if (head.split(',').includes('metadata')) {
    shape = 'dump';
  }
  const reader = await connection.runAndReadAll(query(file, shape));
  const rows = reader.getRowObjectsJson();
  const total = rows.find((r) => r.model === '*');
  const models = rows.filter((r) => r !== total);
  console.log(JSON.stringify({ file, models, total }, null, 2));
  connection.closeSync();
  instance.closeSync();
}

await main();
