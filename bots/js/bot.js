#!/usr/bin/env node
'use strict';
/**
 * jsbot: a mus-arena bot in JavaScript (Node.js, @grpc/grpc-js + @grpc/proto-loader).
 *
 * Everything here follows docs/protocol.md and is built only from the repo's proto/
 * directory, loaded at run time:
 *
 * 1. launch handshake: check MUS_ARENA_COOKIE (without it: a friendly message, exit 1),
 *    choose the app protocol version from MUS_ARENA_PROTOCOL_VERSIONS (we speak 1),
 *    bind 127.0.0.1:0 (or a unix socket in MUS_ARENA_SOCKET_DIR), and print the
 *    announce line `1|1|tcp|127.0.0.1:PORT|grpc` as the first line of stdout;
 * 2. serve mus.v1.BotService: GetInfo, Play (answer every decision_request with a
 *    decision naming its request_id), Shutdown;
 * 3. lifetime: ignore SIGINT, exit on SIGTERM, after answering Shutdown, or when the
 *    parent process (the arena) goes away.
 *
 * The strategy lives in strategy.js.
 */

const fs = require('fs');
const path = require('path');

const NAME = 'jsbot';
const VERSION = '1.0.0';
const AUTHOR = 'mus-arena';
const COOKIE_ENV = 'MUS_ARENA_COOKIE';
const COOKIE_VALUE = 'mus-arena-bot-7d3f0c9a2b1e4f56';
const VERSIONS_ENV = 'MUS_ARENA_PROTOCOL_VERSIONS';
const SOCKET_DIR_ENV = 'MUS_ARENA_SOCKET_DIR';
const CORE_PROTOCOL_VERSION = 1;
const SUPPORTED_VERSIONS = [1]; // mus.v1
// The bot's own copy (made by `npm ci`, see package.json's prepare script), so that the
// bot needs nothing outside its folder (the arena's strict sandbox shows it nothing
// else); the repository's proto/ when run from a checkout without it.
const PROTO_ROOT = [path.join(__dirname, 'proto'), path.resolve(__dirname, '..', '..', 'proto')]
  .find((dir) => fs.existsSync(path.join(dir, 'mus', 'v1', 'bot_service.proto')))
  || path.resolve(__dirname, '..', '..', 'proto');
// JSBOT_DEBUG=1 (in the manifest's [env], say) logs every decision and its time.
const DEBUG = Boolean(process.env.JSBOT_DEBUG);

function log(msg) {
  process.stderr.write(`${NAME}: ${msg}\n`);
}

function main() {
  if (process.env[COOKIE_ENV] !== COOKIE_VALUE) {
    process.stderr.write(
      `This is a mus-arena bot (${NAME}). It is meant to be started by the arena, which\n`
      + 'connects to it over gRPC, not run by hand. Try:\n'
      + '  mus check bots/js\n'
      + '  mus match bots/js bots/rulebot --out out/js\n'
      + '(see bots/js/README.md and docs/protocol.md).\n',
    );
    process.exit(1);
  }

  // The newest version both sides speak. An empty or missing variable: assume 1.
  const offered = (process.env[VERSIONS_ENV] || '1')
    .split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  const common = offered.filter((v) => SUPPORTED_VERSIONS.includes(v));
  if (!common.length) {
    log(`no common protocol version: the arena offers [${offered}], this bot speaks `
      + `[${SUPPORTED_VERSIONS}]`);
    process.exit(1);
  }
  const version = Math.max(...common);

  // Dependencies are loaded only now, so the cookie message works even before `npm ci`.
  let grpc;
  let protoLoader;
  try {
    grpc = require('@grpc/grpc-js');
    protoLoader = require('@grpc/proto-loader');
  } catch (err) {
    log(`cannot load its dependencies (${err.message}); run \`npm ci\` in ${__dirname}`);
    process.exit(1);
  }
  const strategy = require('./strategy');

  const definition = protoLoader.loadSync('mus/v1/bot_service.proto', {
    includeDirs: [PROTO_ROOT],
    keepCase: true, // field names as in the .proto (request_id, legal_actions, ...)
    longs: String, // uint64 request ids as decimal strings, echoed back unchanged
    enums: String, // enum values as their names (PHASE_MUS, RANK_REY, ...)
    defaults: true, // absent scalars and repeated fields get their defaults
    oneofs: true, // a virtual field names the set member of each oneof
  });
  const mus = grpc.loadPackageDefinition(definition).mus.v1;

  try {
    warmUp(mus.BotService.service.Play, strategy);
  } catch (err) {
    log(`warm-up failed (serving anyway): ${err.stack || err}`);
  }

  let server = null;
  let socketPath = null;
  let stopping = false;

  function stop(why, code = 0) {
    if (stopping) return;
    stopping = true;
    log(`stopping (${why})`);
    const finish = () => {
      if (socketPath) {
        try { fs.unlinkSync(socketPath); } catch (_) { /* already gone */ }
      }
      process.exit(code);
    };
    if (!server) finish();
    // Give in-flight calls (the Shutdown answer) a moment, then force.
    const force = setTimeout(() => { server.forceShutdown(); finish(); }, 1000);
    server.tryShutdown(() => { clearTimeout(force); finish(); });
  }

  const service = {
    GetInfo(call, callback) {
      callback(null, {
        name: NAME,
        version: VERSION,
        author: AUTHOR,
        protocol_versions: SUPPORTED_VERSIONS,
        sdk: `node/${process.versions.node} @grpc/grpc-js`,
      });
    },

    Play(call) {
      call.on('data', (msg) => {
        const which = msg.message
          || ['match_start', 'decision_request', 'hand_end', 'match_end'].find((k) => msg[k]);
        if (which !== 'decision_request') return; // notifications: nothing to track
        const req = msg.decision_request;
        const t0 = DEBUG ? process.hrtime.bigint() : 0n;
        let action;
        try {
          ({ action } = strategy.decide(req));
        } catch (err) {
          // Never leave a request unanswered because of a bug: play something legal.
          log(`decide() failed for request ${req.request_id}: ${err.stack || err}`);
          action = fallback(req);
        }
        try {
          call.write({ decision: { request_id: req.request_id, action } });
        } catch (err) {
          log(`cannot answer request ${req.request_id}: ${err.message}`); // stream gone
        }
        if (DEBUG) {
          const us = Number(process.hrtime.bigint() - t0) / 1000;
          log(`request ${req.request_id} ${req.phase} ${req.lance} (kings ${req.rules && req.rules.kings}, `
            + `${req.history.length} events): ${JSON.stringify(action)} in ${us.toFixed(0)} us`);
        }
      });
      call.on('end', () => call.end());
      call.on('error', (err) => log(`Play stream error: ${err.message}`));
    },

    Shutdown(call, callback) {
      callback(null, {});
      setImmediate(() => stop('Shutdown'));
    },
  };

  process.on('SIGINT', () => {}); // the arena owns our lifetime
  process.on('SIGTERM', () => stop('SIGTERM'));

  server = new grpc.Server();
  server.addService(mus.BotService.service, service);

  const socketDir = process.env[SOCKET_DIR_ENV];
  let target;
  if (socketDir) {
    socketPath = path.join(path.resolve(socketDir), `${NAME}-${process.pid}.sock`);
    if (Buffer.byteLength(socketPath) > 100) {
      log(`unix socket path too long: ${socketPath}`);
      process.exit(1);
    }
    try { fs.unlinkSync(socketPath); } catch (_) { /* not there */ }
    target = `unix:${socketPath}`;
  } else {
    target = '127.0.0.1:0';
  }

  server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) {
      log(`cannot bind ${target}: ${err.message}`);
      process.exit(1);
    }
    const address = socketPath ? socketPath : `127.0.0.1:${port}`;
    const network = socketPath ? 'unix' : 'tcp';
    // grpc-js >= 1.10 starts serving on bind; the announce line comes after that.
    process.stdout.write(`${CORE_PROTOCOL_VERSION}|${version}|${network}|${address}|grpc\n`);
  });

  // Exit when the arena goes away (e.g. killed with SIGKILL): we are reparented.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop('parent process gone');
  }, 500).unref();
}

/**
 * Run the decoder, the strategy and the encoder on a few synthetic requests of every
 * phase before serving, so that the first real decisions do not pay for V8's
 * compilation or protobufjs's lazily generated codecs (tens of milliseconds).
 */
function warmUp(play, strategy) {
  const ranks = ['RANK_REY', 'RANK_TRES', 'RANK_CABALLO', 'RANK_SIETE', 'RANK_CINCO',
    'RANK_AS', 'RANK_DOS', 'RANK_SOTA', 'RANK_CUATRO', 'RANK_SEIS'];
  const suits = ['SUIT_OROS', 'SUIT_COPAS', 'SUIT_ESPADAS', 'SUIT_BASTOS'];
  const phases = [
    ['PHASE_MUS', 'LANCE_UNSPECIFIED', [{ mus: {} }, { no_mus: {} }], null],
    ['PHASE_DISCARD', 'LANCE_UNSPECIFIED', null, null],
    ['PHASE_BETTING', 'LANCE_GRANDE', [{ paso: {} }, { envido: { min_amount: 2 } }, { ordago: {} }], null],
    ['PHASE_BETTING', 'LANCE_PARES',
      [{ envido: { min_amount: 2 } }, { quiero: {} }, { no_quiero: {} }, { ordago: {} }],
      { team: 1, seat: 1, stake: 2, deje: 1 }],
    ['PHASE_BETTING', 'LANCE_JUEGO', [{ quiero: {} }, { no_quiero: {} }],
      { team: 1, seat: 3, deje: 3, is_ordago: true }],
  ];
  const history = [
    { mus_call: { seat: 0, wants_mus: true } },
    { declaration: { seat: 1, lance: 'LANCE_PARES', has: true } },
    { declaration: { seat: 1, lance: 'LANCE_JUEGO', has: true } },
    { bet: { seat: 1, lance: 'LANCE_PARES', action: { envido: { amount: 2 } } } },
    { signal: { seat: 2, sena: 'SENA_DOS_REYES' } },
  ];
  for (let i = 0; i < 40; i++) {
    const [phase, lance, legal, bet] = phases[i % phases.length];
    const cards = [0, 1, 2, 3].map((k) => ({
      rank: ranks[(i * 3 + k * 7) % ranks.length], suit: suits[k],
    }));
    const legalActions = legal || [{ discard: { cards, min_count: 1, max_count: 4 } }];
    const request = {
      decision_request: {
        request_id: String(i + 1), seat: i % 4, phase, lance, legal_actions: legalActions,
        cards, mano: 0, dealer: 3, scores: [i, 2 * i], history, bet,
        rules: { players: 4, kings: i % 5 ? 8 : 4, target_points: 40 },
        target_points: 40, deadline_ms: 2000,
      },
    };
    const decoded = play.requestDeserialize(play.requestSerialize(request));
    const req = decoded.decision_request;
    const { action } = strategy.decide(req);
    play.responseSerialize({ decision: { request_id: req.request_id, action } });
  }
}

/** A legal action for any request: the first legal entry made concrete. */
function fallback(req) {
  const first = (req.legal_actions || [])[0] || {};
  const kind = first.kind || Object.keys(first).find((k) => first[k]);
  if (kind === 'envido') return { envido: { amount: Number(first.envido.min_amount) || 2 } };
  if (kind === 'discard') {
    const n = Math.max(1, Number(first.discard.min_count) || 1);
    return { discard: { cards: first.discard.cards.slice(0, n) } };
  }
  return { [kind || 'paso']: {} };
}

main();
