// Prepared statements on PGlite: each SQL text is parsed, analysed and planned once, then only bound and executed.
// PGlite's own query() parses every statement again and crosses into WebAssembly six times for it; this sends a
// statement's Bind, Describe, Execute and Sync as one message, over PGlite's public protocol API.
import { parse, protocol, type PGlite } from '@electric-sql/pglite';

const { serialize } = protocol;

interface Prepared {
  name: string;
  /** The parameters' type OIDs, as PostgreSQL inferred them: each value is serialised for its type. */
  types: number[];
}

/** How many statements stay prepared; past it, the least recently used one is closed. */
const MAX_STATEMENTS = 200;

const message = (parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);

/**
 * The statements of one PGlite session, by SQL text. Only one statement runs at a time (the turn queue sees to
 * it), so no lock is needed here. A statement that fails to parse is not kept; one that fails to run stays
 * prepared, and the error reaches the caller as PGlite's own would.
 */
export class PreparedStatements {
  private readonly statements = new Map<string, Prepared>();
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
      const serializer = this.lite.serializers[statement.types[i]!];
      return serializer ? serializer(value) : String(value);
    });
    const { messages } = await this.lite.execProtocol(
      message([serialize.bind({ statement: statement.name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]),
      { syncToFs: false },
    );
    return parse.parseResults(messages, this.lite.parsers)[0]!.rows as Row[];
  }

  /** Runs SQL without parameters through the simple protocol (BEGIN, COMMIT, ROLLBACK); returns the last command's tag. */
  async command(sql: string): Promise<string | undefined> {
    const { messages } = await this.lite.execProtocol(serialize.query(sql), { syncToFs: false });
    return parse.parseResults(messages, this.lite.parsers).at(-1)?.command;
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
