// Run by conversationCrash.test.ts (compiled, as a child process): appends turns to the store in `dir`
// until killed, printing one acknowledgement line per change once the store has resolved it.
import { openConversationStore } from '../../../src/adapters/store/sqlJsConversationStore';

const TURNS_PER_CONVERSATION = 4;

async function main(): Promise<void> {
  const [dir, writer] = process.argv.slice(2);
  // Frequent compactions, so kills also land in the middle of them.
  const { store } = await openConversationStore(dir, { compactAfterMs: 10, compactAfterChanges: 6 });
  for (let c = 0; ; c++) {
    const conversation = await store.create(`${writer} conversation ${c}`);
    process.stdout.write(`created ${conversation.id}\n`);
    for (let t = 0; t < TURNS_PER_CONVERSATION; t++) {
      const question = `${writer}-${c}-${t}`;
      const turn = await store.appendTurn({
        conversationId: conversation.id, question, answer: `Answer to ${question}. `.repeat(1 + ((c * 7 + t * 13) % 150)),
        context: { pages: [], offline: true }, model: 'offline', inputTokens: 0, outputTokens: 0, created: new Date().toISOString(),
      });
      process.stdout.write(`turn ${turn.conversationId} ${turn.index} ${question}\n`);
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
