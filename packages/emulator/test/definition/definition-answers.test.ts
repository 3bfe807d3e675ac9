// The definition declares what the routes do: each operation's scope is the scope its route
// requires, and every operation declares the answers any route can get (429, 503).
import { describe, expect, it } from "vitest";
import { API_ROUTES, type ApiRouteName } from "../../src/api/api-routes.js";
import {
  OPERATION_SCOPE,
  OPERATIONS,
  type OperationKind,
  operationResponses,
} from "../../src/definition/definition-answers.js";

const ROUTE_OF: Record<OperationKind, ApiRouteName> = {
  launch: "launch",
  getRun: "status",
  getRunResult: "result",
  getRunEvents: "events",
  getRunRecording: "recording",
  answerHumanInput: "human",
};

describe("the definition's answers and scopes", () => {
  it("names, for each operation, the scope its route requires", () => {
    for (const kind of OPERATIONS) {
      const route = API_ROUTES.find((r) => r.name === ROUTE_OF[kind]);
      expect(route?.scope, kind).toBe(OPERATION_SCOPE[kind]);
    }
  });

  it("declares 429 with Retry-After and 503 on every operation, with an open code", () => {
    for (const kind of OPERATIONS) {
      const responses = operationResponses(kind);
      expect(responses["429"]?.headers?.["Retry-After"], kind).toEqual({
        $ref: "#/components/headers/RetryAfter",
      });
      expect(responses["503"]?.headers?.["Retry-After"], kind).toEqual({
        $ref: "#/components/headers/RetryAfterWhenKnown",
      });
      expect(responses["429"]?.content["application/json"].schema).toEqual({
        $ref: "#/components/schemas/Error",
      });
    }
    // Where every code of a status is known, `code` is closed to them.
    expect(
      operationResponses("getRun")["404"]?.content["application/json"].schema.allOf[1].properties
        .code.enum,
    ).toEqual(["RUN_NOT_FOUND"]);
  });
});
