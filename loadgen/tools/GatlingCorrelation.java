// paasmon: one fresh correlation id per request, sent in X-Correlation-Id and carried into
// simulation.log in the request's name (Gatling logs no header), so `paasmon import` can join each
// request with the router's record. The cost: every request is its own entry in Gatling's report.
// The exec(...) chain is the fragment to copy; as is, a complete simulation (Gatling 3.13, Java DSL):
//   -Dport=8080 -Dhost=127.0.0.1 -Dusers=8 -Drepeat=250
import static io.gatling.javaapi.core.CoreDsl.*;
import static io.gatling.javaapi.http.HttpDsl.*;

import io.gatling.javaapi.core.*;
import io.gatling.javaapi.http.*;
import java.time.Duration;
import java.util.UUID;

public class GatlingCorrelation extends Simulation {
  HttpProtocolBuilder protocol =
      http.baseUrl("http://" + System.getProperty("host", "127.0.0.1") + ":" + System.getProperty("port", "8080"))
          .shareConnections();

  ScenarioBuilder scenario =
      scenario("paasmon")
          .repeat(Integer.getInteger("repeat", 250))
          .on(
              exec(session -> session.set("cid", UUID.randomUUID().toString()))
                  .exec(http("GET / #{cid}").get(System.getProperty("path", "/")).header("X-Correlation-Id", "#{cid}")));

  {
    setUp(scenario.injectOpen(atOnceUsers(Integer.getInteger("users", 8))))
        .protocols(protocol)
        .maxDuration(Duration.ofSeconds(Integer.getInteger("maxSeconds", 60)));
  }
}
