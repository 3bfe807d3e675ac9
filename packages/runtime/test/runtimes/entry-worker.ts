// workerd: a Worker whose fetch runs the scenario with the posted config and answers the report.
import { runScenario, type ScenarioConfig } from "./scenario.js";

export default {
  async fetch(request: Request): Promise<Response> {
    const report = await runScenario((await request.json()) as ScenarioConfig);
    return new Response(JSON.stringify(report), {
      headers: { "content-type": "application/json" },
    });
  },
};
