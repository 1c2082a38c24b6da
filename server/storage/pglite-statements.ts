// Prepared statements on PGlite: each SQL text is parsed, analysed and planned once, then only bound and executed.
// PGlite's own query() parses every statement again and crosses into WebAssembly six times for it; this sends a
// statement's Bind, Describe, Execute and Sync as one message, over PGlite's public protocol API.
import { parse, protocol, type messages, type PGlite } from '@electric-sql/pglite';

const { serialize } = protocol;

interface Prepared {
  name: string;
  /** The parameters' type OIDs, as PostgreSQL inferred them: each value is serialised for its type. */
  types: number[];
}

/** How many statements stay prepared; past it, the least recently used one is closed. */
const MAX_STATEMENTS = 200;

const message = (parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);

/** What follows every Bind: describe the unnamed portal, execute it, sync. The same bytes every time. */
const DESCRIBE_EXECUTE_SYNC = message([serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]);

/**
 * A Bind of the unnamed portal to `statement` with text `values`, followed by DESCRIBE_EXECUTE_SYNC, in one buffer.
 * PGlite's own serializer allocates an ArrayBuffer per message, and so many short-lived buffers made the heap grow
 * far past what the service keeps; this one takes a slice of Node's buffer pool, as most small buffers do.
 */
function bindAndExecute(statement: string, values: ReadonlyArray<string | null>): Uint8Array {
  const nameBytes = Buffer.byteLength(statement);
  let length = 4 + 1 + nameBytes + 1 + 2 + 2 + 2;
  const valueBytes = values.map((value) => (value === null ? -1 : Buffer.byteLength(value)));
  for (const bytes of valueBytes) length += 4 + Math.max(bytes, 0);
  const out = Buffer.allocUnsafe(1 + length + DESCRIBE_EXECUTE_SYNC.length);
  let at = out.writeUInt8(0x42, 0); // 'B'
  at = out.writeInt32BE(length, at);
  at = out.writeUInt8(0, at); // the unnamed portal
  at += out.write(statement, at);
  at = out.writeUInt8(0, at);
  at = out.writeInt16BE(0, at); // no parameter format codes: every value is text
  at = out.writeInt16BE(values.length, at);
  values.forEach((value, i) => {
    at = out.writeInt32BE(valueBytes[i], at);
    if (value !== null) at += out.write(value, at);
  });
  at = out.writeInt16BE(0, at); // no result format codes: every column comes as text
  out.set(DESCRIBE_EXECUTE_SYNC, at);
  return out;
}

/** The rows of the one result the messages carry, each column parsed by its type as PGlite's `query` would. */
function rowsOf<Row>(
  backend: messages.BackendMessage[],
  parsers: Record<number, (value: string, type: number) => unknown>,
): Row[] {
  const rows: Row[] = [];
  let fields: messages.RowDescriptionMessage['fields'] = [];
  for (const message of backend) {
    if (message.name === 'rowDescription') fields = (message as messages.RowDescriptionMessage).fields;
    else if (message.name === 'dataRow') {
      const values = (message as messages.DataRowMessage).fields;
      const row: Record<string, unknown> = {};
      for (let i = 0; i < fields.length; i++) {
        const value = values[i] ?? null;
        const parser = parsers[fields[i].dataTypeID];
        row[fields[i].name] = value === null ? null : parser ? parser(value, fields[i].dataTypeID) : value;
      }
      rows.push(row as Row);
    }
  }
  return rows;
}

/**
 * The statements of one PGlite session, by SQL text. Only one statement runs at a time (the turn queue sees to
 * it), so no lock is needed here. A statement that fails to parse is not kept; one that fails to run stays
 * prepared, and the error reaches the caller as PGlite's own would.
 */
export class PreparedStatements {
  private readonly statements = new Map<string, Prepared>();
  /** The simple-protocol messages of commands, made once each (a transaction's BEGIN, COMMIT and ROLLBACK). */
  private readonly commands = new Map<string, Uint8Array>();
  private count = 0;

  constructor(
    private readonly lite: PGlite,
    private readonly max = MAX_STATEMENTS,
  ) {}

  async query<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    let statement = this.statements.get(sql);
    if (statement) {
      // Most recently used last, so the least recently used is closed first.
      this.statements.delete(sql);
      this.statements.set(sql, statement);
    } else {
      statement = await this.prepare(sql);
    }
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = this.lite.serializers[statement.types[i]];
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- with no serializer of its type, a parameter is text or a number
      return serializer ? String(serializer(value)) : String(value);
    });
    const { messages } = await this.lite.execProtocol(bindAndExecute(statement.name, values), { syncToFs: false });
    return rowsOf<Row>(messages, this.lite.parsers);
  }

  /** Runs SQL without parameters through the simple protocol (BEGIN, COMMIT, ROLLBACK); returns the last command's tag. */
  async command(sql: string): Promise<string | undefined> {
    let query = this.commands.get(sql);
    if (!query) {
      query = serialize.query(sql);
      if (this.commands.size < 16) this.commands.set(sql, query);
    }
    const { messages: backend } = await this.lite.execProtocol(query, { syncToFs: false });
    let tag: string | undefined;
    for (const message of backend)
      if (message.name === 'commandComplete') tag = (message as messages.CommandCompleteMessage).text.split(' ')[0];
    return tag;
  }

  get size(): number {
    return this.statements.size;
  }

  private async prepare(sql: string): Promise<Prepared> {
    const name = `s${++this.count}`;
    const parts: Uint8Array[] = [];
    if (this.statements.size >= this.max) {
      const [oldestSql, oldest] = this.statements.entries().next().value!;
      this.statements.delete(oldestSql);
      parts.push(serialize.close({ type: 'S', name: oldest.name }));
    }
    parts.push(serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name }), serialize.sync());
    const { messages } = await this.lite.execProtocol(message(parts), { syncToFs: false });
    const prepared = { name, types: parse.parseDescribeStatementResults(messages) };
    this.statements.set(sql, prepared);
    return prepared;
  }
}
