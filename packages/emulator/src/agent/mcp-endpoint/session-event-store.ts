// What a session of /mcp has sent, kept so that a client whose connection dropped in the middle
// of a call (a `wait_for_run` of 50 s, a laptop changing networks) resumes it: it reconnects with
// `Last-Event-ID` and the transport replays what it missed (the MCP Streamable HTTP transport's
// resumability). One store per session, bounded: the last MAX_EVENTS messages, at most MAX_BYTES
// of them; a client that comes back after more than that has to call again.
import type {
  EventId,
  EventStore,
  StreamId,
} from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export const SESSION_EVENTS = { maxEvents: 1_000, maxBytes: 4 * 1024 * 1024 } as const;

interface StoredEvent {
  readonly id: EventId;
  readonly streamId: StreamId;
  readonly message: JSONRPCMessage;
  readonly bytes: number;
}

export class SessionEventStore implements EventStore {
  private readonly events: StoredEvent[] = [];
  private bytes = 0;
  private next = 0;

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    // Ids sort in the order stored; the stream is part of the id so that it can be found again.
    const id = `${String(this.next++).padStart(12, "0")}.${streamId}`;
    const bytes = JSON.stringify(message).length;
    this.events.push({ id, streamId, message, bytes });
    this.bytes += bytes;
    while (
      this.events.length > SESSION_EVENTS.maxEvents ||
      (this.bytes > SESSION_EVENTS.maxBytes && this.events.length > 1)
    ) {
      const dropped = this.events.shift();
      if (dropped) this.bytes -= dropped.bytes;
    }
    return id;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.events.find((e) => e.id === eventId)?.streamId;
  }

  /** Sends the stream's events after `lastEventId`; "" when that event is no longer kept. */
  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const at = this.events.findIndex((e) => e.id === lastEventId);
    if (at < 0) return "";
    const { streamId } = this.events[at] as StoredEvent;
    for (const event of this.events.slice(at + 1))
      if (event.streamId === streamId) await send(event.id, event.message);
    return streamId;
  }

  get size(): number {
    return this.events.length;
  }
}
