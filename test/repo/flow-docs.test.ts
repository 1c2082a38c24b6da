// docs/flows.md stays true: its examples load, every type has its section and picture, and every key the schema
// takes for a type is documented.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FLOW_TYPES } from '../../src/api/wire.js';
import { checkFlowText } from '../../server/flows/definitions.js';

const doc = readFileSync('docs/flows.md', 'utf8');
const schema = JSON.parse(readFileSync('schema/flow.schema.json', 'utf8'));
const examples = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]).filter((yaml) => /^slug: /m.test(yaml));
/** The text of one `## HEADING` section. */
const section = (heading: string) => doc.split(/^## /m).find((part) => part.startsWith(`${heading}\n`)) ?? '';
const common = section('The file') + section('Every step') + section('Buttons');

describe('docs/flows.md', () => {
  it('has examples that the service loads as they are', () => {
    expect(examples.length).toBeGreaterThanOrEqual(9);
    for (const yaml of examples) expect(checkFlowText(yaml).problems, yaml.split('\n')[1]).toEqual([]);
  });

  it("shows Frigade's NPS survey as Frigade writes it, loaded as a SURVEY without a warning", () => {
    const nps = examples.find((yaml) => /^type: NPS_SURVEY$/m.test(yaml));
    const { definition, problems, warnings } = checkFlowText(nps ?? '');
    expect(problems).toEqual([]);
    expect(warnings).toEqual([]);
    expect(definition!.type).toBe('SURVEY');
    expect(definition!.data.steps.map((step) => step.fields?.map((field) => field.type))).toEqual([
      ['nps'],
      ['textarea'],
    ]);
  });

  it('prints the warning for a field the page draws as flows check prints it', () => {
    const waitlist = examples.find((yaml) => /^slug: waitlist$/m.test(yaml));
    const { problems, warnings } = checkFlowText(waitlist ?? '');
    expect(problems).toEqual([]);
    expect(warnings).toHaveLength(1);
    const [warning] = warnings;
    expect(section('FORM')).toContain(
      `flows/waitlist.yaml:${warning.line}:${warning.column}  warning: ${warning.path}: ${warning.message}`,
    );
  });

  it('gives every flow type a section with a complete example and a picture that exists', () => {
    for (const type of FLOW_TYPES) {
      const text = section(type);
      expect(text, type).toMatch(new RegExp(`^type: ${type}$`, 'm'));
      const image = /!\[[^\]]+\]\((images\/[^)]+\.png)\)/.exec(text)?.[1];
      expect(image, type).toBe(`images/flow-${type.toLowerCase()}.png`);
      expect(existsSync(`docs/${image}`), image).toBe(true);
    }
  });

  it('documents every key the schema takes for each type, with its meaning and default', () => {
    for (const rule of schema.allOf) {
      const type: string = rule.if.properties.type.const ?? rule.if.properties.type.enum[0];
      const data = rule.then.properties.data.properties;
      if (!data.steps.items) {
        // A resource centre: its launcher's keys and every block type's, instead of steps.
        const blockKeys = data.blocks.items.allOf.flatMap((block: any) => Object.keys(block.then.properties));
        for (const key of [
          ...Object.keys(data.launcher.properties),
          ...blockKeys,
          ...data.blocks.items.properties.type.enum,
        ])
          expect(section(type), `${type}: ${key}`).toContain(`\`${key}\``);
        continue;
      }
      const stepKeys = Object.keys(data.steps.items.properties);
      const propKeys = [
        ...Object.keys(data.props.properties),
        ...Object.keys(data.steps.items.properties.props?.properties ?? {}),
      ];
      for (const key of [...stepKeys, ...propKeys])
        expect(`${section(type)}${common}`, `${type}: ${key}`).toContain(`\`${key}\``);
    }
    for (const key of Object.keys(schema.definitions.FormField.properties))
      expect(section('FORM')).toContain(`\`${key}\``);
  });
});
