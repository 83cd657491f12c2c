import type { z } from 'zod';
import { type ErrorCode, getErrorText, readErrorCode } from '#shared/errors.ts';

/** A failed call: its status, the server's data, and the text a person should see (its `message`, else its `error` and `detail`). */
export class ApiError extends Error {
  /** The server's error code when it is one of the shared list's, else null (no code, or one the list does not have). */
  readonly code: ErrorCode | null;
  constructor(
    readonly status: number,
    readonly data: unknown,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
    // Only a code on the shared list counts (decision 042): an unknown one, from an older or newer
    // server, is null rather than passed on as a known code; it stays in `data`.
    this.code = readErrorCode(data);
  }
}

export interface KeyValueStore {
  getItem(key: string): string | null;
}

export interface ApiClientOptions {
  /** Prefix for every path; '' means the page's own origin. */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** Where to look for the bearer token: session storage first, then the stored auth token. */
  readToken?: () => string | null;
  /** The optional debug admin key header's value. */
  readDebugAdminKey?: () => string | null;
  /** Dev or tunnel mode: retry once against the local backend on 404, 502, 503, 504 or a network error. */
  isFallbackEnabled?: () => boolean;
  fallbackBaseUrl?: string;
}

export interface RequestOptions<T> {
  body?: unknown;
  schema?: z.ZodType<T>;
  headers?: Record<string, string>;
  keepalive?: boolean;
  signal?: AbortSignal;
}

export const fallbackRetryStatuses = [404, 502, 503, 504];
export const localBackendUrl = 'http://localhost:3000';

/** The one HTTP client: cookies, bearer token, JSON bodies (form data for uploads), one error rule. */
export function createApiClient(options: ApiClientOptions = {}) {
  const baseUrl = options.baseUrl ?? '';
  const fallbackBaseUrl = options.fallbackBaseUrl ?? localBackendUrl;
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));

  function buildInit(method: string, body: unknown, extraHeaders: Record<string, string> | undefined, keepalive?: boolean, signal?: AbortSignal): RequestInit {
    const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
    const token = options.readToken?.();
    if (token) headers.authorization = `Bearer ${token}`;
    const debugKey = options.readDebugAdminKey?.();
    if (debugKey) headers['x-debug-admin-key'] = debugKey;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) {
      payload = body;
    } else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    return { method, headers, body: payload, credentials: 'include', keepalive, signal };
  }

  async function readData(response: Response): Promise<unknown> {
    const text = await response.text();
    if (!text) return null;
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }

  async function request<T = unknown>(method: string, path: string, requestOptions: RequestOptions<T> = {}): Promise<T> {
    const init = () => buildInit(method, requestOptions.body, requestOptions.headers, requestOptions.keepalive, requestOptions.signal);
    const canFallBack = Boolean(options.isFallbackEnabled?.()) && fallbackBaseUrl !== baseUrl;
    let response: Response;
    try {
      response = await doFetch(`${baseUrl}${path}`, init());
      if (canFallBack && fallbackRetryStatuses.includes(response.status)) {
        response = await doFetch(`${fallbackBaseUrl}${path}`, init());
      }
    } catch (error) {
      if (requestOptions.signal?.aborted || !canFallBack) {
        throw new ApiError(0, null, error instanceof Error ? `Network error: ${error.message}` : 'Network error');
      }
      try {
        response = await doFetch(`${fallbackBaseUrl}${path}`, init());
      } catch (retryError) {
        throw new ApiError(0, null, retryError instanceof Error ? `Network error: ${retryError.message}` : 'Network error');
      }
    }
    const data = await readData(response);
    if (!response.ok) throw new ApiError(response.status, data, getErrorText(data, `Request failed (${response.status})`));
    if (requestOptions.schema) {
      const parsed = requestOptions.schema.safeParse(data);
      if (!parsed.success) throw new ApiError(response.status, data, 'The server sent an answer this page does not understand.');
      return parsed.data;
    }
    return data as T;
  }

  /**
   * Multipart upload with progress (XMLHttpRequest reports upload progress; fetch does not).
   * Same headers and error rule as every other call; `headers` adds to them (a resume token).
   */
  function upload<T>(
    path: string,
    form: FormData,
    onProgress: (fraction: number) => void,
    schema?: z.ZodType<T>,
    headers?: Record<string, string>,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', `${baseUrl}${path}`);
      xhr.withCredentials = true;
      const init = buildInit('POST', undefined, headers);
      for (const [name, value] of Object.entries(init.headers as Record<string, string>)) xhr.setRequestHeader(name, value);
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable) onProgress(event.loaded / event.total);
      };
      xhr.onerror = () => reject(new ApiError(0, null, 'Network error: the upload did not reach the server.'));
      xhr.onload = () => {
        let data: unknown = xhr.responseText;
        try {
          data = xhr.responseText ? JSON.parse(xhr.responseText) : null;
        } catch {
          // keep the text
        }
        if (xhr.status < 200 || xhr.status >= 300) {
          reject(new ApiError(xhr.status, data, getErrorText(data, `Upload failed (${xhr.status})`)));
          return;
        }
        onProgress(1);
        if (!schema) return resolve(data as T);
        const parsed = schema.safeParse(data);
        if (parsed.success) resolve(parsed.data);
        else reject(new ApiError(xhr.status, data, 'The server sent an answer this page does not understand.'));
      };
      xhr.send(form);
    });
  }

  return {
    request,
    upload,
    get: <T>(path: string, schema?: z.ZodType<T>) => request<T>('GET', path, { schema }),
    post: <T>(path: string, body?: unknown, schema?: z.ZodType<T>) => request<T>('POST', path, { body, schema }),
    put: <T>(path: string, body?: unknown, schema?: z.ZodType<T>) => request<T>('PUT', path, { body, schema }),
    patch: <T>(path: string, body?: unknown, schema?: z.ZodType<T>) => request<T>('PATCH', path, { body, schema }),
    delete: <T>(path: string, schema?: z.ZodType<T>) => request<T>('DELETE', path, { schema }),
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
