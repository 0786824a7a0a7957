# expect-error: syntax.too-deep @ 411:9
@cake.schedule()
def k(lm, Q: LM.tma2d, K: LM.i32):
    pool = lm.smem(65536)
    smem = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    load = lm.role(warps=[0])
    mma = lm.role(warps=[1])
    full = lm.barrier(count=2, prod=[load], cons=[mma], init_count=1)
    with load:
        lm.fence_proxy()
    with mma:
        if K == 0:
            lm.fence_proxy()
        elif K == 1:
            lm.fence_proxy()
        elif K == 2:
            lm.fence_proxy()
        elif K == 3:
            lm.fence_proxy()
        elif K == 4:
            lm.fence_proxy()
        elif K == 5:
            lm.fence_proxy()
        elif K == 6:
            lm.fence_proxy()
        elif K == 7:
            lm.fence_proxy()
        elif K == 8:
            lm.fence_proxy()
        elif K == 9:
            lm.fence_proxy()
        elif K == 10:
            lm.fence_proxy()
        elif K == 11:
            lm.fence_proxy()
        elif K == 12:
            lm.fence_proxy()
        elif K == 13:
            lm.fence_proxy()
        elif K == 14:
            lm.fence_proxy()
        elif K == 15:
            lm.fence_proxy()
        elif K == 16:
            lm.fence_proxy()
        elif K == 17:
            lm.fence_proxy()
        elif K == 18:
            lm.fence_proxy()
        elif K == 19:
            lm.fence_proxy()
        elif K == 20:
            lm.fence_proxy()
        elif K == 21:
            lm.fence_proxy()
        elif K == 22:
            lm.fence_proxy()
        elif K == 23:
            lm.fence_proxy()
        elif K == 24:
            lm.fence_proxy()
        elif K == 25:
            lm.fence_proxy()
        elif K == 26:
            lm.fence_proxy()
        elif K == 27:
            lm.fence_proxy()
        elif K == 28:
            lm.fence_proxy()
        elif K == 29:
            lm.fence_proxy()
        elif K == 30:
            lm.fence_proxy()
        elif K == 31:
            lm.fence_proxy()
        elif K == 32:
            lm.fence_proxy()
        elif K == 33:
            lm.fence_proxy()
        elif K == 34:
            lm.fence_proxy()
        elif K == 35:
            lm.fence_proxy()
        elif K == 36:
            lm.fence_proxy()
        elif K == 37:
            lm.fence_proxy()
        elif K == 38:
            lm.fence_proxy()
        elif K == 39:
            lm.fence_proxy()
        elif K == 40:
            lm.fence_proxy()
        elif K == 41:
            lm.fence_proxy()
        elif K == 42:
            lm.fence_proxy()
        elif K == 43:
            lm.fence_proxy()
        elif K == 44:
            lm.fence_proxy()
        elif K == 45:
            lm.fence_proxy()
        elif K == 46:
            lm.fence_proxy()
        elif K == 47:
            lm.fence_proxy()
        elif K == 48:
            lm.fence_proxy()
        elif K == 49:
            lm.fence_proxy()
        elif K == 50:
            lm.fence_proxy()
        elif K == 51:
            lm.fence_proxy()
        elif K == 52:
            lm.fence_proxy()
        elif K == 53:
            lm.fence_proxy()
        elif K == 54:
            lm.fence_proxy()
        elif K == 55:
            lm.fence_proxy()
        elif K == 56:
            lm.fence_proxy()
        elif K == 57:
            lm.fence_proxy()
        elif K == 58:
            lm.fence_proxy()
        elif K == 59:
            lm.fence_proxy()
        elif K == 60:
            lm.fence_proxy()
        elif K == 61:
            lm.fence_proxy()
        elif K == 62:
            lm.fence_proxy()
        elif K == 63:
            lm.fence_proxy()
        elif K == 64:
            lm.fence_proxy()
        elif K == 65:
            lm.fence_proxy()
        elif K == 66:
            lm.fence_proxy()
        elif K == 67:
            lm.fence_proxy()
        elif K == 68:
            lm.fence_proxy()
        elif K == 69:
            lm.fence_proxy()
        elif K == 70:
            lm.fence_proxy()
        elif K == 71:
            lm.fence_proxy()
        elif K == 72:
            lm.fence_proxy()
        elif K == 73:
            lm.fence_proxy()
        elif K == 74:
            lm.fence_proxy()
        elif K == 75:
            lm.fence_proxy()
        elif K == 76:
            lm.fence_proxy()
        elif K == 77:
            lm.fence_proxy()
        elif K == 78:
            lm.fence_proxy()
        elif K == 79:
            lm.fence_proxy()
        elif K == 80:
            lm.fence_proxy()
        elif K == 81:
            lm.fence_proxy()
        elif K == 82:
            lm.fence_proxy()
        elif K == 83:
            lm.fence_proxy()
        elif K == 84:
            lm.fence_proxy()
        elif K == 85:
            lm.fence_proxy()
        elif K == 86:
            lm.fence_proxy()
        elif K == 87:
            lm.fence_proxy()
        elif K == 88:
            lm.fence_proxy()
        elif K == 89:
            lm.fence_proxy()
        elif K == 90:
            lm.fence_proxy()
        elif K == 91:
            lm.fence_proxy()
        elif K == 92:
            lm.fence_proxy()
        elif K == 93:
            lm.fence_proxy()
        elif K == 94:
            lm.fence_proxy()
        elif K == 95:
            lm.fence_proxy()
        elif K == 96:
            lm.fence_proxy()
        elif K == 97:
            lm.fence_proxy()
        elif K == 98:
            lm.fence_proxy()
        elif K == 99:
            lm.fence_proxy()
        elif K == 100:
            lm.fence_proxy()
        elif K == 101:
            lm.fence_proxy()
        elif K == 102:
            lm.fence_proxy()
        elif K == 103:
            lm.fence_proxy()
        elif K == 104:
            lm.fence_proxy()
        elif K == 105:
            lm.fence_proxy()
        elif K == 106:
            lm.fence_proxy()
        elif K == 107:
            lm.fence_proxy()
        elif K == 108:
            lm.fence_proxy()
        elif K == 109:
            lm.fence_proxy()
        elif K == 110:
            lm.fence_proxy()
        elif K == 111:
            lm.fence_proxy()
        elif K == 112:
            lm.fence_proxy()
        elif K == 113:
            lm.fence_proxy()
        elif K == 114:
            lm.fence_proxy()
        elif K == 115:
            lm.fence_proxy()
        elif K == 116:
            lm.fence_proxy()
        elif K == 117:
            lm.fence_proxy()
        elif K == 118:
            lm.fence_proxy()
        elif K == 119:
            lm.fence_proxy()
        elif K == 120:
            lm.fence_proxy()
        elif K == 121:
            lm.fence_proxy()
        elif K == 122:
            lm.fence_proxy()
        elif K == 123:
            lm.fence_proxy()
        elif K == 124:
            lm.fence_proxy()
        elif K == 125:
            lm.fence_proxy()
        elif K == 126:
            lm.fence_proxy()
        elif K == 127:
            lm.fence_proxy()
        elif K == 128:
            lm.fence_proxy()
        elif K == 129:
            lm.fence_proxy()
        elif K == 130:
            lm.fence_proxy()
        elif K == 131:
            lm.fence_proxy()
        elif K == 132:
            lm.fence_proxy()
        elif K == 133:
            lm.fence_proxy()
        elif K == 134:
            lm.fence_proxy()
        elif K == 135:
            lm.fence_proxy()
        elif K == 136:
            lm.fence_proxy()
        elif K == 137:
            lm.fence_proxy()
        elif K == 138:
            lm.fence_proxy()
        elif K == 139:
            lm.fence_proxy()
        elif K == 140:
            lm.fence_proxy()
        elif K == 141:
            lm.fence_proxy()
        elif K == 142:
            lm.fence_proxy()
        elif K == 143:
            lm.fence_proxy()
        elif K == 144:
            lm.fence_proxy()
        elif K == 145:
            lm.fence_proxy()
        elif K == 146:
            lm.fence_proxy()
        elif K == 147:
            lm.fence_proxy()
        elif K == 148:
            lm.fence_proxy()
        elif K == 149:
            lm.fence_proxy()
        elif K == 150:
            lm.fence_proxy()
        elif K == 151:
            lm.fence_proxy()
        elif K == 152:
            lm.fence_proxy()
        elif K == 153:
            lm.fence_proxy()
        elif K == 154:
            lm.fence_proxy()
        elif K == 155:
            lm.fence_proxy()
        elif K == 156:
            lm.fence_proxy()
        elif K == 157:
            lm.fence_proxy()
        elif K == 158:
            lm.fence_proxy()
        elif K == 159:
            lm.fence_proxy()
        elif K == 160:
            lm.fence_proxy()
        elif K == 161:
            lm.fence_proxy()
        elif K == 162:
            lm.fence_proxy()
        elif K == 163:
            lm.fence_proxy()
        elif K == 164:
            lm.fence_proxy()
        elif K == 165:
            lm.fence_proxy()
        elif K == 166:
            lm.fence_proxy()
        elif K == 167:
            lm.fence_proxy()
        elif K == 168:
            lm.fence_proxy()
        elif K == 169:
            lm.fence_proxy()
        elif K == 170:
            lm.fence_proxy()
        elif K == 171:
            lm.fence_proxy()
        elif K == 172:
            lm.fence_proxy()
        elif K == 173:
            lm.fence_proxy()
        elif K == 174:
            lm.fence_proxy()
        elif K == 175:
            lm.fence_proxy()
        elif K == 176:
            lm.fence_proxy()
        elif K == 177:
            lm.fence_proxy()
        elif K == 178:
            lm.fence_proxy()
        elif K == 179:
            lm.fence_proxy()
        elif K == 180:
            lm.fence_proxy()
        elif K == 181:
            lm.fence_proxy()
        elif K == 182:
            lm.fence_proxy()
        elif K == 183:
            lm.fence_proxy()
        elif K == 184:
            lm.fence_proxy()
        elif K == 185:
            lm.fence_proxy()
        elif K == 186:
            lm.fence_proxy()
        elif K == 187:
            lm.fence_proxy()
        elif K == 188:
            lm.fence_proxy()
        elif K == 189:
            lm.fence_proxy()
        elif K == 190:
            lm.fence_proxy()
        elif K == 191:
            lm.fence_proxy()
        elif K == 192:
            lm.fence_proxy()
        elif K == 193:
            lm.fence_proxy()
        elif K == 194:
            lm.fence_proxy()
        elif K == 195:
            lm.fence_proxy()
        elif K == 196:
            lm.fence_proxy()
        elif K == 197:
            lm.fence_proxy()
        elif K == 198:
            lm.fence_proxy()
        elif K == 199:
            lm.fence_proxy()
        elif K == 200:
            lm.fence_proxy()
        elif K == 201:
            lm.fence_proxy()
        elif K == 202:
            lm.fence_proxy()
        elif K == 203:
            lm.fence_proxy()
        elif K == 204:
            lm.fence_proxy()
        elif K == 205:
            lm.fence_proxy()
        elif K == 206:
            lm.fence_proxy()
        elif K == 207:
            lm.fence_proxy()
        elif K == 208:
            lm.fence_proxy()
        elif K == 209:
            lm.fence_proxy()
        elif K == 210:
            lm.fence_proxy()
        elif K == 211:
            lm.fence_proxy()
        elif K == 212:
            lm.fence_proxy()
        elif K == 213:
            lm.fence_proxy()
        elif K == 214:
            lm.fence_proxy()
        elif K == 215:
            lm.fence_proxy()
        elif K == 216:
            lm.fence_proxy()
        elif K == 217:
            lm.fence_proxy()
        elif K == 218:
            lm.fence_proxy()
        elif K == 219:
            lm.fence_proxy()
        elif K == 220:
            lm.fence_proxy()
        elif K == 221:
            lm.fence_proxy()
        elif K == 222:
            lm.fence_proxy()
        elif K == 223:
            lm.fence_proxy()
        elif K == 224:
            lm.fence_proxy()
        elif K == 225:
            lm.fence_proxy()
        elif K == 226:
            lm.fence_proxy()
        elif K == 227:
            lm.fence_proxy()
        elif K == 228:
            lm.fence_proxy()
        elif K == 229:
            lm.fence_proxy()
        elif K == 230:
            lm.fence_proxy()
        elif K == 231:
            lm.fence_proxy()
        elif K == 232:
            lm.fence_proxy()
        elif K == 233:
            lm.fence_proxy()
        elif K == 234:
            lm.fence_proxy()
        elif K == 235:
            lm.fence_proxy()
        elif K == 236:
            lm.fence_proxy()
        elif K == 237:
            lm.fence_proxy()
        elif K == 238:
            lm.fence_proxy()
        elif K == 239:
            lm.fence_proxy()
        elif K == 240:
            lm.fence_proxy()
        elif K == 241:
            lm.fence_proxy()
        elif K == 242:
            lm.fence_proxy()
        elif K == 243:
            lm.fence_proxy()
        elif K == 244:
            lm.fence_proxy()
        elif K == 245:
            lm.fence_proxy()
        elif K == 246:
            lm.fence_proxy()
        elif K == 247:
            lm.fence_proxy()
        elif K == 248:
            lm.fence_proxy()
        elif K == 249:
            lm.fence_proxy()
        elif K == 250:
            lm.fence_proxy()
        elif K == 251:
            lm.fence_proxy()
        elif K == 252:
            lm.fence_proxy()
        elif K == 253:
            lm.fence_proxy()
        elif K == 254:
            lm.fence_proxy()
        elif K == 255:
            lm.fence_proxy()
        elif K == 256:
            lm.fence_proxy()
        elif K == 257:
            lm.fence_proxy()
        elif K == 258:
            lm.fence_proxy()
        elif K == 259:
            lm.fence_proxy()
        elif K == 260:
            lm.fence_proxy()
        elif K == 261:
            lm.fence_proxy()
        elif K == 262:
            lm.fence_proxy()
        elif K == 263:
            lm.fence_proxy()
        elif K == 264:
            lm.fence_proxy()
        elif K == 265:
            lm.fence_proxy()
        elif K == 266:
            lm.fence_proxy()
        elif K == 267:
            lm.fence_proxy()
        elif K == 268:
            lm.fence_proxy()
        elif K == 269:
            lm.fence_proxy()
        elif K == 270:
            lm.fence_proxy()
        elif K == 271:
            lm.fence_proxy()
        elif K == 272:
            lm.fence_proxy()
        elif K == 273:
            lm.fence_proxy()
        elif K == 274:
            lm.fence_proxy()
        elif K == 275:
            lm.fence_proxy()
        elif K == 276:
            lm.fence_proxy()
        elif K == 277:
            lm.fence_proxy()
        elif K == 278:
            lm.fence_proxy()
        elif K == 279:
            lm.fence_proxy()
        elif K == 280:
            lm.fence_proxy()
        elif K == 281:
            lm.fence_proxy()
        elif K == 282:
            lm.fence_proxy()
        elif K == 283:
            lm.fence_proxy()
        elif K == 284:
            lm.fence_proxy()
        elif K == 285:
            lm.fence_proxy()
        elif K == 286:
            lm.fence_proxy()
        elif K == 287:
            lm.fence_proxy()
        elif K == 288:
            lm.fence_proxy()
        elif K == 289:
            lm.fence_proxy()
        elif K == 290:
            lm.fence_proxy()
        elif K == 291:
            lm.fence_proxy()
        elif K == 292:
            lm.fence_proxy()
        elif K == 293:
            lm.fence_proxy()
        elif K == 294:
            lm.fence_proxy()
        elif K == 295:
            lm.fence_proxy()
        elif K == 296:
            lm.fence_proxy()
        elif K == 297:
            lm.fence_proxy()
        elif K == 298:
            lm.fence_proxy()
        elif K == 299:
            lm.fence_proxy()
        elif K == 300:
            lm.fence_proxy()
        elif K == 301:
            lm.fence_proxy()
        elif K == 302:
            lm.fence_proxy()
        elif K == 303:
            lm.fence_proxy()
        elif K == 304:
            lm.fence_proxy()
        elif K == 305:
            lm.fence_proxy()
        elif K == 306:
            lm.fence_proxy()
        elif K == 307:
            lm.fence_proxy()
        elif K == 308:
            lm.fence_proxy()
        elif K == 309:
            lm.fence_proxy()
        elif K == 310:
            lm.fence_proxy()
        elif K == 311:
            lm.fence_proxy()
        elif K == 312:
            lm.fence_proxy()
        elif K == 313:
            lm.fence_proxy()
        elif K == 314:
            lm.fence_proxy()
        elif K == 315:
            lm.fence_proxy()
        elif K == 316:
            lm.fence_proxy()
        elif K == 317:
            lm.fence_proxy()
        elif K == 318:
            lm.fence_proxy()
        elif K == 319:
            lm.fence_proxy()
        elif K == 320:
            lm.fence_proxy()
        elif K == 321:
            lm.fence_proxy()
        elif K == 322:
            lm.fence_proxy()
        elif K == 323:
            lm.fence_proxy()
        elif K == 324:
            lm.fence_proxy()
        elif K == 325:
            lm.fence_proxy()
        elif K == 326:
            lm.fence_proxy()
        elif K == 327:
            lm.fence_proxy()
        elif K == 328:
            lm.fence_proxy()
        elif K == 329:
            lm.fence_proxy()
        elif K == 330:
            lm.fence_proxy()
        elif K == 331:
            lm.fence_proxy()
        elif K == 332:
            lm.fence_proxy()
        elif K == 333:
            lm.fence_proxy()
        elif K == 334:
            lm.fence_proxy()
        elif K == 335:
            lm.fence_proxy()
        elif K == 336:
            lm.fence_proxy()
        elif K == 337:
            lm.fence_proxy()
        elif K == 338:
            lm.fence_proxy()
        elif K == 339:
            lm.fence_proxy()
        elif K == 340:
            lm.fence_proxy()
        elif K == 341:
            lm.fence_proxy()
        elif K == 342:
            lm.fence_proxy()
        elif K == 343:
            lm.fence_proxy()
        elif K == 344:
            lm.fence_proxy()
        elif K == 345:
            lm.fence_proxy()
        elif K == 346:
            lm.fence_proxy()
        elif K == 347:
            lm.fence_proxy()
        elif K == 348:
            lm.fence_proxy()
        elif K == 349:
            lm.fence_proxy()
        elif K == 350:
            lm.fence_proxy()
        elif K == 351:
            lm.fence_proxy()
        elif K == 352:
            lm.fence_proxy()
        elif K == 353:
            lm.fence_proxy()
        elif K == 354:
            lm.fence_proxy()
        elif K == 355:
            lm.fence_proxy()
        elif K == 356:
            lm.fence_proxy()
        elif K == 357:
            lm.fence_proxy()
        elif K == 358:
            lm.fence_proxy()
        elif K == 359:
            lm.fence_proxy()
        elif K == 360:
            lm.fence_proxy()
        elif K == 361:
            lm.fence_proxy()
        elif K == 362:
            lm.fence_proxy()
        elif K == 363:
            lm.fence_proxy()
        elif K == 364:
            lm.fence_proxy()
        elif K == 365:
            lm.fence_proxy()
        elif K == 366:
            lm.fence_proxy()
        elif K == 367:
            lm.fence_proxy()
        elif K == 368:
            lm.fence_proxy()
        elif K == 369:
            lm.fence_proxy()
        elif K == 370:
            lm.fence_proxy()
        elif K == 371:
            lm.fence_proxy()
        elif K == 372:
            lm.fence_proxy()
        elif K == 373:
            lm.fence_proxy()
        elif K == 374:
            lm.fence_proxy()
        elif K == 375:
            lm.fence_proxy()
        elif K == 376:
            lm.fence_proxy()
        elif K == 377:
            lm.fence_proxy()
        elif K == 378:
            lm.fence_proxy()
        elif K == 379:
            lm.fence_proxy()
        elif K == 380:
            lm.fence_proxy()
        elif K == 381:
            lm.fence_proxy()
        elif K == 382:
            lm.fence_proxy()
        elif K == 383:
            lm.fence_proxy()
        elif K == 384:
            lm.fence_proxy()
        elif K == 385:
            lm.fence_proxy()
        elif K == 386:
            lm.fence_proxy()
        elif K == 387:
            lm.fence_proxy()
        elif K == 388:
            lm.fence_proxy()
        elif K == 389:
            lm.fence_proxy()
        elif K == 390:
            lm.fence_proxy()
        elif K == 391:
            lm.fence_proxy()
        elif K == 392:
            lm.fence_proxy()
        elif K == 393:
            lm.fence_proxy()
        elif K == 394:
            lm.fence_proxy()
        elif K == 395:
            lm.fence_proxy()
        elif K == 396:
            lm.fence_proxy()
        elif K == 397:
            lm.fence_proxy()
        elif K == 398:
            lm.fence_proxy()
        elif K == 399:
            lm.fence_proxy()
