import * as assert from 'node:assert/strict';
import { assembleToolCalls } from '../../../../src/adapters/llm/toolCallDeltas';

describe('tool calls assembled from stream fragments', () => {
  it('as OpenAI sends them: index on every fragment, id on the first', () => {
    assert.deepEqual(assembleToolCalls([
      { index: 0, id: 'call_a', function: { name: 'read_code', arguments: '' } },
      { index: 0, function: { arguments: '{"cita' } },
      { index: 1, id: 'call_b', function: { name: 'search_wiki', arguments: '{"query":' } },
      { index: 0, function: { arguments: 'tion":"x"}' } },
      { index: 1, function: { arguments: '"y"}' } },
    ]), [{ id: 'call_a', name: 'read_code', arguments: '{"citation":"x"}' }, { id: 'call_b', name: 'search_wiki', arguments: '{"query":"y"}' }]);
  });

  it('without ids (llama.cpp): ids are made so results still pair', () => {
    assert.deepEqual(assembleToolCalls([
      { index: 0, function: { name: 'a', arguments: '{}' } },
      { index: 1, function: { name: 'b', arguments: '{"x":' } },
      { index: 1, function: { arguments: '1}' } },
    ]).map((call) => [call.id, call.name, call.arguments]), [['call_1', 'a', '{}'], ['call_2', 'b', '{"x":1}']]);
  });

  it('without indexes (LM Studio): a name or a new id starts the next call', () => {
    assert.deepEqual(assembleToolCalls([
      { id: 'c1', function: { name: 'a', arguments: '{"p":' } },
      { function: { arguments: '1}' } },
      { id: 'c2', function: { name: 'b' } },
      { function: { arguments: '{}' } },
    ]), [{ id: 'c1', name: 'a', arguments: '{"p":1}' }, { id: 'c2', name: 'b', arguments: '{}' }]);
  });

  it('whole calls that share an index are told apart by their ids', () => {
    assert.equal(assembleToolCalls([
      { index: 0, id: 'c1', function: { name: 'a', arguments: '{}' } },
      { index: 0, id: 'c2', function: { name: 'b', arguments: '{}' } },
    ]).length, 2);
  });
});
