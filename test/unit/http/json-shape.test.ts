import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ValidationError } from '#shared/errors.ts';
import { JSON_LIMITS, jsonShapeProblem } from '#shared/http/json-shape.ts';
import { renderProblem } from '#shared/http/problem.ts';
import { fieldErrors, MAX_FIELD_ERRORS, parseOrThrow } from '#shared/http/validation.ts';

describe('the bound on a body’s shape', () => {
  it('accepts every shape the contract allows: a full batch of 500 products with 100 variants each', () => {
    const variants = Array.from({ length: 100 }, (_, i) => ({ external_variant_id: `v${i}`, price: '1.00', currency: 'EUR' }));
    const products = Array.from({ length: 500 }, (_, i) => ({ external_product_id: `p${i}`, title: 't', source_version: '1', variants }));
    expect(jsonShapeProblem({ products })).toBeUndefined();
  });

  it('names the first array that is too long, the nesting that is too deep, and a body of too many values', () => {
    expect(jsonShapeProblem({ applies_to: { external_product_ids: new Array(JSON_LIMITS.arrayItems + 1).fill('') } })).toEqual({
      pointer: '/applies_to/external_product_ids',
      message: `must have at most ${JSON_LIMITS.arrayItems} items`,
      tooLarge: true,
    });
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonShapeProblem(deep)).toMatchObject({ message: expect.stringMatching(/nests deeper/), tooLarge: false });
    const wide = Array.from({ length: 1000 }, () => Array.from({ length: 1000 }, () => 0));
    expect(jsonShapeProblem(wide)).toMatchObject({ message: expect.stringMatching(/more than/), tooLarge: true });
  });
});

describe('validation errors', () => {
  it(`list at most ${MAX_FIELD_ERRORS} field errors with pointers, and how many there were`, () => {
    const schema = z.object({ ids: z.array(z.string().min(1)) });
    let error: unknown;
    try {
      parseOrThrow(schema, { ids: new Array(900).fill('') }, 'body');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    const problem = renderProblem(error, '/x', 'req');
    expect(problem.body.errors).toHaveLength(MAX_FIELD_ERRORS);
    expect((problem.body.errors as { pointer: string }[])[0]!.pointer).toBe('/ids/0');
    expect(problem.body.errors_total).toBe(900);
    expect(JSON.stringify(problem.body).length).toBeLessThan(20_000);
    expect(fieldErrors([], 'body')).toEqual([]);
  });
});
