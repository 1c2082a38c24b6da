// A survey's part of its flow report: each step's answers, counted at write time, and a text step's latest comments.
import type { FormField, StepDefinition, SurveyStepReport } from '../../src/api/wire.js';
import type { Queryable } from '../storage/store.js';
import { localeMatch, type AnalyticsWindow } from './window.js';
import { answersWhere, IN_WINDOW, type FlowMeta } from './report-shared.js';

/** What a survey step is reported as: its kind, and the field of its data whose answers are counted. */
interface ReportedStep {
  step: StepDefinition;
  kind: SurveyStepReport['kind'];
  /** The key of the answer in the step's data: `value` for a step given by `type`, a field's `id` for one given as fields. */
  field: string;
  /** The choices of a `single` or `multiple` report. */
  options: unknown;
}

/**
 * A survey step as the survey element draws it: by its `type`, else `nps` first and `text` after, answered under
 * `value`; or, for a step given as fields, by its first `nps` field, else its first choice field (`radio`, `select`,
 * `checkbox` with options; `multiple` for checkboxes and a select with `multiple`), else its first field as `text`.
 */
function reportedStep(step: StepDefinition, index: number): ReportedStep {
  if (Array.isArray(step.fields)) {
    const fields = step.fields.filter((field): field is FormField => typeof field?.id === 'string');
    const nps = fields.find((field) => field.type === 'nps');
    if (nps) return { step, kind: 'nps', field: nps.id, options: [] };
    const choice = fields.find(
      (field) =>
        field.type === 'radio' ||
        field.type === 'select' ||
        (field.type === 'checkbox' && Array.isArray(field.options) && field.options.length > 0),
    );
    if (choice)
      return {
        step,
        kind: choice.type === 'checkbox' || choice.multiple === true ? 'multiple' : 'single',
        field: choice.id,
        options: choice.options,
      };
    return { step, kind: 'text', field: fields[0]?.id ?? 'value', options: [] };
  }
  const kinds = ['nps', 'rating', 'single', 'multiple', 'text'];
  const kind = typeof step.type === 'string' && kinds.includes(step.type) ? step.type : index === 0 ? 'nps' : 'text';
  return { step, kind, field: 'value', options: step.options };
}

/** Comments shown per text step; the rest are in the responses export. */
const LATEST_COMMENTS = 20;
/** Latest answers of a text step that the comments are picked from, so the read is bounded. */
const COMMENT_SCAN = 500;
/** Distinct values read per survey, however many different values clients sent. */
const MAX_VALUES = 5000;

/** A counted value as its step's field and the value's text: `9` is field `value`'s "9", `{"nps-score": "9"}` field nps-score's "9". */
function fieldAndValue(text: string): [field: string, value: string] {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    const [entry] = Object.entries(parsed);
    if (entry) return [entry[0], String(entry[1])];
  }
  return ['value', String(parsed)];
}

export async function surveyReport(
  db: Queryable,
  meta: FlowMeta,
  window: AnalyticsWindow,
): Promise<SurveyStepReport[]> {
  const base = [meta.slug, window.from.toISOString(), window.to.toISOString(), window.version];
  const steps = meta.steps.map(reportedStep);
  const counted = steps.filter(({ kind }) => kind !== 'text').map(({ step }) => step.id);
  // From the answer counts kept at write time: each step's answers (value ''), and each value of the steps that count them.
  const rows = await db.query<{ step_id: string; value: string; n: number }>(
    `SELECT step_id, value, sum(count)::int AS n FROM analytics_answers
     WHERE ${IN_WINDOW}
       AND step_id = ANY($5::text[]) AND (value = '' OR step_id = ANY($6::text[])) AND ${localeMatch('locale', '$7')}
     GROUP BY step_id, value HAVING sum(count) > 0
     ORDER BY value = '' DESC, n DESC LIMIT ${MAX_VALUES + meta.steps.length}`,
    [
      meta.slug,
      window.days[0],
      window.to.toISOString().slice(0, 10),
      window.version,
      steps.map(({ step }) => step.id),
      counted,
      window.locale,
    ],
  );
  const answered = new Map<string, number>();
  // By step and field: how often each value came.
  const valueCounts = new Map<string, Map<string, number>>();
  for (const row of rows) {
    if (row.value === '') {
      answered.set(row.step_id, row.n);
      continue;
    }
    // 9 and "9" are one answer to a score, as the survey element sends one and Frigade's components the other.
    const [field, value] = fieldAndValue(row.value);
    const key = `${row.step_id}\u0000${field}`;
    let counts = valueCounts.get(key);
    if (!counts) valueCounts.set(key, (counts = new Map<string, number>()));
    counts.set(value, (counts.get(value) ?? 0) + row.n);
  }
  const reports: SurveyStepReport[] = [];
  for (const { step, kind, field, options } of steps) {
    const title = step.title ?? null;
    const counts = valueCounts.get(`${step.id}\u0000${field}`);
    const count = (value: number | string) => counts?.get(String(value)) ?? 0;
    if (kind === 'nps') {
      const distribution = Array.from({ length: 11 }, (_, score) => count(score));
      const total = distribution.reduce((a, b) => a + b, 0);
      const promoters = distribution[9] + distribution[10];
      const detractors = distribution.slice(0, 7).reduce((a, b) => a + b, 0);
      reports.push({
        kind,
        stepId: step.id,
        title,
        responses: total,
        promoters,
        passives: total - promoters - detractors,
        detractors,
        distribution,
        score: total > 0 ? Math.round(((promoters - detractors) / total) * 1000) / 10 : null,
      });
    } else if (kind === 'rating') {
      const max = Math.min(Math.max(Number(step.props?.max) || 5, 2), 10);
      const distribution = Array.from({ length: max }, (_, i) => count(i + 1));
      const total = distribution.reduce((a, b) => a + b, 0);
      const sum = distribution.reduce((a, n, i) => a + n * (i + 1), 0);
      reports.push({
        kind,
        stepId: step.id,
        title,
        responses: total,
        average: total > 0 ? Math.round((sum / total) * 100) / 100 : null,
        distribution,
      });
    } else if (kind === 'single' || kind === 'multiple') {
      const choices = (Array.isArray(options) ? (options as Array<{ value: unknown; label?: unknown }>) : []).map(
        (option) => ({
          value: String(option.value),
          label: typeof option.label === 'string' ? option.label : String(option.value),
          count: count(String(option.value)),
        }),
      );
      reports.push({ kind, stepId: step.id, title, responses: answered.get(step.id) ?? 0, options: choices });
    } else {
      // The latest answers through the index by step, newest first; the non-empty texts of the field among them are the comments.
      const comments = await db.query<{
        user_id: string;
        value: string;
        created_at: Date | string;
        url: string | null;
      }>(
        `SELECT latest.user_id, a.doc ->> $6 AS value, latest.created_at, latest.url
         FROM (SELECT r.id, r.user_id, r.data, r.created_at, r.url FROM flow_responses r
               WHERE ${answersWhere('$7')} AND r.step_id = $5 ORDER BY r.created_at DESC, r.id DESC LIMIT ${COMMENT_SCAN}) AS latest
         CROSS JOIN LATERAL (SELECT latest.data::jsonb AS doc) AS a
         WHERE jsonb_typeof(a.doc -> $6) = 'string' AND a.doc ->> $6 <> ''
         ORDER BY latest.created_at DESC, latest.id DESC LIMIT ${LATEST_COMMENTS}`,
        [...base, step.id, field, window.locale],
      );
      reports.push({
        kind: 'text',
        stepId: step.id,
        title,
        responses: answered.get(step.id) ?? 0,
        comments: comments.map((c) => ({
          userId: c.user_id,
          value: c.value,
          createdAt: new Date(c.created_at).toISOString(),
          url: c.url,
        })),
      });
    }
  }
  return reports;
}
