import './integrations.css';
import { useDeferredValue, useId, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiKeyScopeLabels, apiKeyScopeSchema } from '#shared/api-keys.ts';
import { FormAlert } from '#web/components/field.tsx';
import { api } from '#web/lib/api.ts';
import { apiReferenceKeys } from './api-reference-queries.ts';

/**
 * The API's reference, read from /api/openapi.json (generated from the server's zod contracts,
 * decision 054): operations grouped by their tag, each with its method, path, who may call it,
 * its parameters and body fields, and a search over all of them.
 */

type JsonSchema = {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  $ref?: string;
};

/** A JSON Schema of the document, read as it is (the server generated it from the zod contracts). */
const jsonSchema = z.custom<JsonSchema>((value) => typeof value === 'object' && value !== null && !Array.isArray(value));
const operationSchema = z.looseObject({
  tags: z.array(z.string()).optional(),
  description: z.string().optional(),
  'x-access': z.union([z.string(), z.array(z.string())]).optional(),
  'x-api-key-scope': apiKeyScopeSchema.optional(),
  parameters: z
    .array(
      z.looseObject({ name: z.string(), in: z.string(), required: z.boolean().optional(), schema: jsonSchema.optional(), description: z.string().optional() }),
    )
    .optional(),
  requestBody: z.looseObject({ content: z.record(z.string(), z.looseObject({ schema: jsonSchema.optional() })) }).optional(),
  responses: z.record(z.string(), z.unknown()).optional(),
});
const documentSchema = z.looseObject({
  info: z.looseObject({ title: z.string(), description: z.string().optional() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.looseObject({ schemas: z.record(z.string(), jsonSchema).optional() }).optional(),
});
type Operation = z.infer<typeof operationSchema>;

const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Entry {
  id: string;
  method: string;
  path: string;
  tag: string;
  operation: Operation;
  searchText: string;
}

/** "Anyone", "Signed in", "Administrator, Title company" from x-access. */
function describeAccessShort(access: Operation['x-access']): string {
  if (access === 'public') return 'Anyone';
  if (access === 'signed-in') return 'Signed in';
  if (access === 'mfa') return 'Password step';
  if (Array.isArray(access)) return access.map((role) => role.replace('_', ' ')).join(', ');
  return 'Unknown';
}

function resolve(schema: JsonSchema | undefined, components: Record<string, JsonSchema>, depth = 0): JsonSchema {
  if (!schema) return {};
  if (schema.$ref && depth < 5) return resolve(components[schema.$ref.split('/').at(-1) ?? ''], components, depth + 1);
  return schema;
}

/** A field's type in words: "string (uuid)", "one of: a, b", "list of string", "string or null". */
function describeType(given: JsonSchema | undefined, components: Record<string, JsonSchema>): string {
  const schema = resolve(given, components);
  if (schema.enum) return `one of: ${schema.enum.map((value) => JSON.stringify(value)).join(', ')}`;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.map((each) => describeType(each, components)).join(' or ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const words = types.map((type) => (type === 'array' ? `list of ${describeType(schema.items, components)}` : type));
  const base = words.join(' or ') || 'any';
  return schema.format ? `${base} (${schema.format})` : base;
}

/** "1-80 characters", "at most 10 items", "default: 1". */
function describeLimits(schema: JsonSchema): string {
  const notes: string[] = [];
  if (schema.minLength !== undefined || schema.maxLength !== undefined) notes.push(`${schema.minLength ?? 0}–${schema.maxLength ?? '∞'} characters`);
  if (schema.minimum !== undefined || schema.maximum !== undefined) notes.push(`${schema.minimum ?? '−∞'} to ${schema.maximum ?? '∞'}`);
  if (schema.minItems !== undefined || schema.maxItems !== undefined) notes.push(`${schema.minItems ?? 0}–${schema.maxItems ?? '∞'} items`);
  if (schema.default !== undefined) notes.push(`default: ${JSON.stringify(schema.default)}`);
  if (schema.description) notes.push(schema.description);
  return notes.join('; ');
}

function toEntries(document: z.infer<typeof documentSchema>): Entry[] {
  const entries: Entry[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of methods) {
      const parsed = operationSchema.safeParse(item[method]);
      if (!parsed.success) continue;
      const operation = parsed.data;
      const tag = operation.tags?.[0] ?? 'other';
      const searchText = [method, path, tag, operation.description ?? '', describeAccessShort(operation['x-access']), operation['x-api-key-scope'] ?? '']
        .join(' ')
        .toLowerCase();
      entries.push({ id: `${method}-${path}`, method, path, tag, operation, searchText });
    }
  }
  return entries;
}

export function ApiReference() {
  const reference = useQuery({ queryKey: apiReferenceKeys.document(), queryFn: () => api.get('/api/openapi.json', documentSchema), staleTime: 5 * 60_000 });
  const [query, setQuery] = useState('');
  const deferredQuery = useDeferredValue(query);
  const searchId = useId();
  const entries = useMemo(() => (reference.data ? toEntries(reference.data) : []), [reference.data]);
  const words = deferredQuery.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const shown = entries.filter((entry) => words.every((word) => entry.searchText.includes(word)));
  const groups = new Map<string, Entry[]>();
  for (const entry of shown) groups.set(entry.tag, [...(groups.get(entry.tag) ?? []), entry]);
  const components = reference.data?.components?.schemas ?? {};

  return (
    <div className="stack api-reference">
      <section className="card stack" aria-labelledby="api-reference-title">
        <h1 id="api-reference-title">API reference</h1>
        <p>
          Every operation of the API, generated from the contracts the server checks each call against. Title companies call the operations marked with a key
          scope using an API key from their company page, sent as <code>Authorization: Bearer ronk_…</code>. The same document, for tools, is at{' '}
          <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).
        </p>
        <ul>
          {apiKeyScopeSchema.options.map((scope) => (
            <li key={scope}>
              <code>{scope}</code>: {apiKeyScopeLabels[scope].description}
            </li>
          ))}
        </ul>
        <div className="field api-reference-search">
          <label htmlFor={searchId}>Search operations</label>
          <input
            id={searchId}
            type="search"
            value={query}
            placeholder="e.g. jobs, documents, POST, jobs:read"
            onChange={(event) => setQuery(event.target.value)}
            aria-describedby={`${searchId}-count`}
          />
          <p className="field-hint" id={`${searchId}-count`} aria-live="polite">
            {reference.data ? `${shown.length} of ${entries.length} operations` : ''}
          </p>
        </div>
      </section>
      <FormAlert message={reference.error?.message ?? null} />
      {reference.isPending ? <p role="status">Loading the API reference…</p> : null}
      {reference.data && shown.length === 0 ? <p className="empty">No operation matches “{query.trim()}”. Try a shorter word.</p> : null}
      {[...groups.entries()].map(([tag, items]) => (
        <section key={tag} className="card stack" aria-labelledby={`api-tag-${tag}`}>
          <h2 id={`api-tag-${tag}`}>{tag}</h2>
          {items.map((entry) => (
            <OperationDetails key={entry.id} entry={entry} components={components} />
          ))}
        </section>
      ))}
    </div>
  );
}

function OperationDetails({ entry, components }: { entry: Entry; components: Record<string, JsonSchema> }) {
  const { operation } = entry;
  const scope = operation['x-api-key-scope'];
  const body = resolve(operation.requestBody?.content['application/json']?.schema, components);
  const bodyFields = Object.entries(body.properties ?? {});
  const parameters = operation.parameters ?? [];
  const statuses = Object.keys(operation.responses ?? {});
  return (
    <details className="api-operation">
      <summary>
        <span className={`api-method method-${entry.method}`}>{entry.method.toUpperCase()}</span>
        <span className="api-path">{entry.path}</span>
        <span className="muted">
          {describeAccessShort(operation['x-access'])}
          {scope ? ` · API key: ${scope}` : ''}
        </span>
      </summary>
      <div className="stack">
        {operation.description
          ? operation.description.split('\n\n').map((paragraph) => (
              <p key={paragraph} className="api-description">
                {paragraph.replace(/`/g, '')}
              </p>
            ))
          : null}
        {parameters.length > 0 ? (
          <FieldTable
            caption="Parameters"
            rows={parameters.map((parameter) => ({
              name: parameter.name,
              where: parameter.in,
              isRequired: Boolean(parameter.required),
              type: describeType(parameter.schema, components),
              notes: describeLimits(resolve(parameter.schema, components)),
            }))}
          />
        ) : null}
        {bodyFields.length > 0 ? (
          <FieldTable
            caption="Body fields (JSON)"
            rows={bodyFields.map(([name, field]) => ({
              name,
              where: 'body',
              isRequired: body.required?.includes(name) ?? false,
              type: describeType(field, components),
              notes: describeLimits(resolve(field, components)),
            }))}
          />
        ) : null}
        {statuses.length > 0 ? (
          <p className="muted">
            Answers: {statuses.join(', ')}; a refusal answers {'{ error, message }'} with a sentence.
          </p>
        ) : null}
      </div>
    </details>
  );
}

function FieldTable({ caption, rows }: { caption: string; rows: Array<{ name: string; where: string; isRequired: boolean; type: string; notes: string }> }) {
  return (
    <table className="api-fields">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">In</th>
          <th scope="col">Type</th>
          <th scope="col">Notes</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={`${row.where}-${row.name}`}>
            <td>
              <code>{row.name}</code>
              {row.isRequired ? ' (required)' : ' (optional)'}
            </td>
            <td>{row.where}</td>
            <td>{row.type}</td>
            <td>{row.notes}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
