// JSON text made ahead of time, sent as it is: the reply serializer passes it through and serialises the rest.
export class RawJson {
  constructor(readonly text: string) {}
}

export const serializeReply = (payload: unknown): string => (payload instanceof RawJson ? payload.text : JSON.stringify(payload));

/** `{"userId":…,"guestLinked":…,"flowStates":…}` around a rendered state answer (the users upsert and sessions). */
export const identifiedJson = (userId: string, guestLinked: boolean, flowStates: RawJson): RawJson =>
  new RawJson(`{"userId":${JSON.stringify(userId)},"guestLinked":${guestLinked},"flowStates":${flowStates.text}}`);
